import { Marked, type Tokens } from 'marked';
import { escapeHtml } from './pages.js';

/**
 * The guides in docs/ rendered as HTML pages. They are read on GitHub too, so a heading's id is the
 * one GitHub gives it (links between guides name those anchors), and a link to another guide's file
 * becomes a link to its page. Nothing in a guide can add markup of its own: raw HTML is shown as text,
 * and a link is kept only when it is an anchor, a guide or a web address.
 */

/** GitHub's heading id: the heading's text, lower-cased, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text only
    .replace(/[`*]/g, '') // code and emphasis marks are not text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

export interface RenderOptions {
  /** where the page of a guide lives, by its name (the file name without `.md`); undefined: not a guide */
  guideHref: (name: string) => string | undefined;
}

/** Where a link of a guide points on the service, or undefined when it has nowhere to point. */
function linkTarget(href: string, options: RenderOptions): string | undefined {
  if (/^https?:\/\//i.test(href) || href.startsWith('#')) return href;
  const guide = /^(?:\.\/)?([a-z0-9-]+)\.md(#[^\s]*)?$/.exec(href);
  if (!guide) return undefined; // another file of the repository: the service does not serve it
  const page = options.guideHref(guide[1] as string);
  return page === undefined ? undefined : page + (guide[2] ?? '');
}

export interface RenderedGuide {
  /** the text of the first level-1 heading */
  title: string;
  html: string;
}

export function renderGuide(markdown: string, options: RenderOptions): RenderedGuide {
  const seen = new Map<string, number>();
  let title = '';
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading({ tokens, depth, text }: Tokens.Heading) {
        const base = slug(text);
        const n = seen.get(base) ?? 0;
        seen.set(base, n + 1);
        const id = n === 0 ? base : `${base}-${n}`;
        if (depth === 1 && !title) title = text.replace(/`/g, '');
        return `<h${depth} id="${escapeHtml(id)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      link({ href, tokens }: Tokens.Link) {
        const inner = this.parser.parseInline(tokens);
        const target = linkTarget(href, options);
        if (target === undefined) return inner;
        const external = /^https?:/i.test(target) ? ' rel="noopener noreferrer"' : '';
        return `<a href="${escapeHtml(target)}"${external}>${inner}</a>`;
      },
      image({ text }: Tokens.Image) {
        return escapeHtml(text);
      },
      html({ text }: Tokens.HTML | Tokens.Tag) {
        return escapeHtml(text);
      },
    },
  });
  const html = marked.parse(markdown, { async: false });
  return { title, html };
}
