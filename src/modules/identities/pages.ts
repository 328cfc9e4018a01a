import { guideHref, html } from '../portal/pages/html.js';
import { alert, BASE, signedIn } from '../portal/pages/pages.js';
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
  const rows = links.map(
    (l) =>
      html`<tr role="row">
        <td role="cell">${platformName(l.platform)}</td>
        <td role="cell"><code>${l.player_id}</code></td>
        <td role="cell">${l.name}</td>
        <td role="cell">${l.linked_at.slice(0, 16).replace('T', ' ')}</td>
        <td role="cell">
          <form method="post" action="${IDENTITIES_PAGE}/remove">
            <input type="hidden" name="_csrf" value="${account.csrfToken}" />
            <input type="hidden" name="platform" value="${l.platform}" />
            <input type="hidden" name="player_id" value="${l.player_id}" />
            <button type="submit" class="secondary small">Unlink</button>
          </form>
        </td>
      </tr>`,
  );
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
      ${alert('error', notice.errors?.join(' '))}${alert('success', notice.success)}
      <section class="card" aria-labelledby="code-title">
        <h2 id="code-title">Link from the game</h2>
        <form method="post" action="${IDENTITIES_PAGE}/code" class="row">
          <input type="hidden" name="_csrf" value="${account.csrfToken}" />
          <p class="grow">Get a code, then type <code>/link CODE</code> on a hub server within 10 minutes.</p>
          <button type="submit">Get a link code</button>
        </form>
      </section>
      <section class="card" aria-labelledby="enter-title">
        <h2 id="enter-title">Enter a code the game showed you</h2>
        <form method="post" action="${IDENTITIES_PAGE}/link" class="row">
          <input type="hidden" name="_csrf" value="${account.csrfToken}" />
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
        ${
          links.length === 0
            ? html`<p class="empty">No linked identities yet.</p>`
            : html`<div class="table-wrap">
                <table role="table">
                  <thead role="rowgroup">
                    <tr role="row">
                      <th role="columnheader" scope="col">Platform</th>
                      <th role="columnheader" scope="col">Id</th>
                      <th role="columnheader" scope="col">Name in game</th>
                      <th role="columnheader" scope="col">Linked (UTC)</th>
                      <th role="columnheader" scope="col"><span class="visually-hidden">Actions</span></th>
                    </tr>
                  </thead>
                  <tbody role="rowgroup">
                    ${rows}
                  </tbody>
                </table>
              </div>`
        }
      </section>`,
  );
}
