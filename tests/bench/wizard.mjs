// The first thing a school sees: the set-up wizard's first load in Chromium, on a fresh appliance
// (no accounts yet), each load in a new browser context (an empty cache, as on the first visit).
// Measured from the navigation's start to the wizard's heading on screen. Chromium is Debian's
// (CHROMIUM_PATH for another build); without it the figure is left out, said so in the table.
import fs from 'node:fs';
import { chromium } from 'playwright-core';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** `runs` cold loads of the wizard at `origin`: each one's milliseconds, the median and the slowest. */
export async function measureWizard({ origin, runs = 7 }) {
  if (!fs.existsSync(CHROMIUM_PATH)) return null;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS, headless: true });
  const loads = [];
  try {
    // One load first to start the browser's own processes, not counted: a school's browser is running.
    for (let i = 0; i <= runs; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const started = performance.now();
      await page.goto(origin);
      await page.getByRole('heading', { name: 'Set up CampusBridge' }).waitFor({ timeout: 60_000 });
      if (i > 0) loads.push(performance.now() - started);
      await context.close();
    }
  } finally {
    await browser.close();
  }
  const sorted = [...loads].sort((a, b) => a - b);
  return { loadsMs: loads, medianMs: sorted[Math.floor(sorted.length / 2)], maxMs: sorted.at(-1) };
}
