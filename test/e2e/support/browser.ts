import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { ROOT } from './standalone-process';

/**
 * Debian's Chromium, driven by playwright-core (no browser download). The flags keep it from calling
 * out (the test machines have no internet: Chromium's background services would only fail) and let
 * it run as root in a container.
 */
export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface TestBrowser {
  readonly browser: Browser;
  /** A fresh context (no shared memory, so no token) with a page of the given width. */
  page(width: number): Promise<Page>;
  close(): Promise<void>;
}

/** playwright-core gives each launch a fresh temporary profile (its own --user-data-dir) and removes it on close. */
export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  return {
    browser,
    page: async (width) => (await browser.newContext({ viewport: { width, height: 900 } })).newPage(),
    close: () => browser.close(),
  };
}

/** Where the runs leave their screenshots for a reviewer (git-ignored). */
export function screenshotDir(suite: string): string {
  const dir = join(ROOT, '.artifacts', suite);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly { readonly target: readonly string[] }[];
}

/**
 * axe-core's WCAG 2 A/AA rules on the page as it is. The script goes in through the DevTools
 * protocol (page.evaluate), which the page's CSP does not govern; a script tag would be refused.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  // An expression, not a function: the test program has no DOM types, the page has.
  return page.evaluate<AxeViolation[]>(`axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(AXE_TAGS)} } })
    .then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`);
}
