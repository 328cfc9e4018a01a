import { guideHref, html } from '../portal/pages/html.js';
import { BASE, csrfField, listTable, notices, signedIn } from '../portal/pages/pages.js';
import type { PortalAccount } from '../portal/session-auth.js';
import type { LinkView } from './service.js';

export const IDENTITIES_PAGE = `${BASE}/identities`;

const platformName = (platform: LinkView['platform']) =>
  platform === 'minecraft' ? 'Minecraft' : 'Epic (EOS)';

/** The signed-in user's game identities: get a code to type in game, enter a plugin's code, unlink. */
export function identitiesPage(
  account: PortalAccount,
  links: readonly LinkView[],
  notice: { errors?: string[]; success?: string } = {},
): string {
  return signedIn(
    account,
    'Game identities',
    html`<h1>Game identities</h1>
      <p class="lead">
        Link your Minecraft or Epic game identity to <strong>${account.username}</strong>: what a hub game
        server reports of that player (kills, matches, XP) then lands on your profile. Without a link it
        counts for nobody. Steam players need no link. See
        <a href="${guideHref('game-servers', 'identity-links')}">Identity links</a>.
      </p>
      ${notices(notice)}
      <section class="card" aria-labelledby="code-title">
        <h2 id="code-title">Link from the game</h2>
        <form method="post" action="${IDENTITIES_PAGE}/code" class="row">
          ${csrfField(account)}
          <p class="grow">Get a code, then type <code>/link CODE</code> on a hub server within 10 minutes.</p>
          <button type="submit">Get a link code</button>
        </form>
      </section>
      <section class="card" aria-labelledby="enter-title">
        <h2 id="enter-title">Enter a code the game showed you</h2>
        <form method="post" action="${IDENTITIES_PAGE}/link" class="row">
          ${csrfField(account)}
          <div class="grow">
            <label for="code">Code</label>
            <input
              type="text"
              id="code"
              name="code"
              required
              maxlength="7"
              placeholder="7KQ-M3X"
              autocomplete="off"
            />
          </div>
          <button type="submit">Link</button>
        </form>
      </section>
      <section class="card" aria-labelledby="list-title">
        <h2 id="list-title">Your linked identities</h2>
        ${listTable({
          className: 'identities',
          empty: 'No linked identities yet.',
          columns: [
            'Platform',
            'Id',
            'Name in game',
            'Linked (UTC)',
            html`<span class="visually-hidden">Actions</span>`,
          ],
          items: links,
          row: (l) =>
            html`<td>${platformName(l.platform)}</td>
              <td><code>${l.player_id}</code></td>
              <td>${l.name}</td>
              <td>${l.linked_at.slice(0, 16).replace('T', ' ')}</td>
              <td>
                <form method="post" action="${IDENTITIES_PAGE}/remove">
                  ${csrfField(account)}
                  <input type="hidden" name="platform" value="${l.platform}" />
                  <input type="hidden" name="player_id" value="${l.player_id}" />
                  <button type="submit" class="secondary small">Unlink</button>
                </form>
              </td>`,
        })}
      </section>`,
  );
}
