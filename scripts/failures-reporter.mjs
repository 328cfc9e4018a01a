// A node:test reporter that writes one line per failed test (file, test name, first line of the
// error) and nothing else. npm test runs it beside the spec reporter and prints what it wrote at the
// very end, so that the tail of a long run, all a CI log may keep, names what failed.
import { relative } from 'node:path';

export default async function* failures(source) {
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    // a suite fails when one of its tests does; that test has its own line
    if (details?.type === 'suite') continue;
    const cause = details?.error?.cause ?? details?.error;
    const message = String(cause?.message ?? cause ?? '')
      .split('\n')[0]
      .slice(0, 300);
    yield `${file ? relative(process.cwd(), file) : '?'} :: ${name} :: ${message}\n`;
  }
}
