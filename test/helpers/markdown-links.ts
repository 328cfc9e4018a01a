import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { slug } from '../../src/http/docs/markdown.js';

/**
 * Relative links and anchors of markdown files, read the way GitHub renders them: headings and links
 * count only outside fenced code blocks, and a link written inside an inline code span is not a link.
 */

/** The lines of a markdown text that are not inside a fenced code block. */
function proseLines(text: string): { line: string; number: number }[] {
  const out: { line: string; number: number }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, i) => {
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (open) {
      const marker = open[1] as string;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return;
    }
    if (fence === undefined) out.push({ line, number: i + 1 });
  });
  return out;
}

/** Every anchor a markdown text defines: heading ids (repeats get -1, -2 … as on GitHub). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { line } of proseLines(text)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1] as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

export interface Link {
  target: string;
  line: number;
}

/** Every link target in the prose of a markdown text (inline links; inline code spans removed first). */
export function links(text: string): Link[] {
  const out: Link[] = [];
  for (const { line, number } of proseLines(text)) {
    const prose = line.replace(/(`+)[^`]*?\1/g, (m) => (m.startsWith('``') ? '' : m.replace(/[^`]/g, ' ')));
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      out.push({ target: m[1] as string, line: number });
    }
  }
  return out;
}

/**
 * The broken relative links of the given markdown files: a file that does not exist, or an `#anchor`
 * that its target does not define. External links (a scheme such as https:, mailto:) are not checked.
 */
export function brokenLinks(files: string[], root: string): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const { target, line } of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const where = `${relative(root, file)}:${line}: ${target}`;
      const hash = target.indexOf('#');
      const path = hash === -1 ? target : target.slice(0, hash);
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const targetFile = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      if (!existsSync(targetFile)) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (anchor === undefined) continue;
      if (statSync(targetFile).isDirectory() || !targetFile.endsWith('.md')) {
        broken.push(`${where} (an anchor into a file that is not markdown)`);
        continue;
      }
      if (!anchors(readFileSync(targetFile, 'utf8')).has(anchor)) broken.push(`${where} (no such anchor)`);
    }
  }
  return broken;
}

/** README.md and every markdown file of docs/ in a checkout. */
export function documentationFiles(root: string): string[] {
  const docs = join(root, 'docs');
  return [
    join(root, 'README.md'),
    ...readdirSync(docs)
      .filter((f) => f.endsWith('.md'))
      .map((f) => join(docs, f)),
  ];
}
