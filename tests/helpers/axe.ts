// axe-core in the browser tests: @axe-core/playwright needs Node 22, so the page gets axe.min.js
// injected and `axe.run()` is called in it (docs/decisions/accessibility-checks.md).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A violation axe rates serious or critical: its rule, why it matters, and where (a few selectors). */
export interface SeriousViolation {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Runs axe over the page as it stands (WCAG 2.1 A and AA rules, and axe's best practices) and returns what is serious or critical. */
export async function seriousViolations(page: Page): Promise<SeriousViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    interface AxeViolation {
      id: string;
      impact: string | null;
      help: string;
      nodes: Array<{ target: unknown[] }>;
    }
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return result.violations.map((violation) => ({
      rule: violation.id,
      impact: violation.impact ?? 'unknown',
      help: violation.help,
      targets: violation.nodes.slice(0, 4).map((node) => node.target.map(String).join(' ')),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** How far the page scrolls sideways, or anything in the fixed header sticks out past the window's right edge, in pixels. */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const header = [...document.querySelectorAll('header *')].filter((element) => element.getClientRects().length > 0);
    const headerRight = Math.max(0, ...header.map((element) => element.getBoundingClientRect().right));
    return Math.max(document.documentElement.scrollWidth - document.documentElement.clientWidth, Math.ceil(headerRight - window.innerWidth));
  });
}
