import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumEnv, describeChromiumSource, ensureChromium } from '../../src/testing/chromium';

/**
 * A real headless Chromium for the page tests, driven by playwright-core: the system's when one is
 * on PATH, else npm's @sparticuz/chromium, unpacked once into the cache (the global setup did it
 * already; a file run alone unpacks it here). Says which browser ran, on stderr.
 */
export async function launchChromium(): Promise<Browser> {
  const source = await ensureChromium(process.env, (line) => console.error(line));
  if (source.kind === 'none' || source.kind === 'npm') throw new Error(`no Chromium for the page tests: ${describeChromiumSource(source)}`);
  const browser = await chromium.launch({ executablePath: source.binary, args: CHROMIUM_ARGS, env: { ...process.env, ...chromiumEnv(source) }, timeout: 30_000 });
  console.error(`[browser] ${describeChromiumSource(source)} (${browser.version()})`);
  return browser;
}
