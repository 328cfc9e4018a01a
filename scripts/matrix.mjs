// What the two language matrices (test-clients.mjs: the client libraries, test-plugins.mjs: the
// plugin SDKs) do alike: pick the languages named on the command line, build the service, run a
// language's commands, and read the result lines its scenarios print.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A `log` that prefixes each line with the matrix's name (`test:clients: …`). */
/** Lines on stderr, each with the seconds since the script started (where a long run spends its time). */
export const logger = (name) => (line) =>
  process.stderr.write(`${name} [${Math.round(performance.now() / 1000)} s]: ${line}\n`);

/**
 * The languages of `languagesFile` named on the command line (all of them without a name); exits
 * when a name matches none (`no <what> named …`).
 */
export function selectLanguages(languagesFile, what) {
  const { languages: all } = JSON.parse(readFileSync(languagesFile, 'utf8'));
  const wanted = process.argv.slice(2);
  const languages = all.filter((l) => wanted.length === 0 || wanted.includes(l.name));
  if (languages.length === 0) {
    console.error(`no ${what} named ${wanted.join(', ')}`);
    process.exit(1);
  }
  return languages;
}

/** `npm run build` (dist/, which the hubs run from), unless `skipVariable` is set in the environment. */
export function buildService(root, skipVariable, log) {
  if (process.env[skipVariable]) return;
  log('building the service');
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

/**
 * Runs a command and answers its exit code and stdout (echoed to stderr with `options.echo`); a
 * command that cannot start is a failure, not a crash of the runner.
 */
export function run(command, args, options) {
  return new Promise((done) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (options.echo) process.stderr.write(chunk);
    });
    child.on('exit', (code) => done({ code: code ?? 1, stdout }));
    child.on('error', (error) => done({ code: 1, stdout: String(error) }));
  });
}

/** The scenario results in a scenario run's stdout: one JSON line each (`{"scenario": …}`), by name. */
export function scenarioResults(stdout) {
  const byName = new Map();
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const result = JSON.parse(line);
      if (typeof result.scenario === 'string') byName.set(result.scenario, result);
    } catch {
      // not a result line
    }
  }
  return byName;
}
