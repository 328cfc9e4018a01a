import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, never a downloaded browser (`.ci/run` installs the `chromium` package). */
export const CHROMIUM = '/usr/bin/chromium';

/** Why browser tests are skipped here, or false when Chromium is installed. */
export const browserSkipReason: string | false = existsSync(CHROMIUM)
  ? false
  : `browser tests need Debian's Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run does it)`;

// No background traffic: this machine has no network, and a test must see only the service's requests.
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
