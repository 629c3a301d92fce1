// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * The operator's Backups page in Chromium: back up now, choose a backup to restore (applied by the
 * next start: this test appliance cannot restart itself), cancel it, and download the recovery
 * kit with a passphrase typed in the page; then the restore really happens at the next start.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRecoveryKit } from '../../server/crypto/recovery-kit.js';
import { FileMasterKeyStore, masterKeyFile } from '../../server/crypto/master-key.js';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, openPage, signInOnPage, screenshotter } from '../helpers/browser.js';
import { ok, portalRequests, setUpPortal, signIn } from '../helpers/portal.js';

const OPERATOR = { institution: 'Hillcrest Academy', admin_email: 'admin@hillcrest.test', admin_password: 'hillcrest admin pw' };
const PASSPHRASE = 'hillcrest recovery passphrase';

describe.skipIf(!chromiumAvailable())('The Backups page in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  const shot = screenshotter('backups');

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    await setUpPortal(app, OPERATOR);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  async function signedIn(): Promise<{ page: Page; errors: string[] }> {
    const opened = await openPage(browser, { acceptDownloads: true });
    await signInOnPage(opened.page, app.origin, OPERATOR.admin_email, OPERATOR.admin_password);
    return opened;
  }

  it('backs up now, chooses and cancels a restore, and downloads a recovery kit that opens with the passphrase', async () => {
    const { page, errors } = await signedIn();
    await page.goto(`${app.origin}/#/operator/backups`);
    await page.getByRole('main').getByRole('heading', { name: 'Backups' }).waitFor();

    await page.getByRole('main').getByRole('button', { name: 'Back up now' }).first().click();
    const restoreButton = page.getByRole('button', { name: /^Restore campusbridge-.*-manual\.sqlite$/ });
    await restoreButton.waitFor();
    await expect(page.getByRole('link', { name: /^Download campusbridge-.*-manual\.sqlite$/ }).getAttribute('href')).resolves.toMatch(
      /^\/portal\/api\/operator\/backups\/campusbridge-.*-manual\.sqlite\/download$/,
    );
    await shot(page, 'backed-up');

    await restoreButton.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Restore at next start' }).click();
    await page.getByRole('main').getByRole('alert').filter({ hasText: 'A restore is waiting' }).waitFor();
    await shot(page, 'restore-waiting');
    await page.getByRole('button', { name: 'Cancel the restore' }).click();
    await page.getByRole('main').getByRole('alert').filter({ hasText: 'A restore is waiting' }).waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Download recovery kit' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/^Passphrase\s*\*?$/).fill(PASSPHRASE);
    await dialog.getByLabel(/^Passphrase again/).fill(`${PASSPHRASE}!`);
    await expect(dialog.getByRole('button', { name: 'Download' }).isDisabled()).resolves.toBe(true);
    await dialog.getByLabel(/^Passphrase again/).fill(PASSPHRASE);
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^campusbridge-recovery-kit-\d{8}T\d{6}Z\.json$/);
    const kit = fs.readFileSync((await download.path())!, 'utf8');
    const key = await openRecoveryKit(kit, PASSPHRASE);
    expect(key.equals(new FileMasterKeyStore(masterKeyFile(app.dataDir)).load()!)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('a restore chosen in the page takes the data back at the next start', async () => {
    const { page } = await signedIn();
    await page.goto(`${app.origin}/#/operator/backups`);
    await page.getByRole('main').getByRole('button', { name: 'Back up now' }).first().click();
    await page.getByText(/^Backed up as /).waitFor();
    // A change after the backup.
    await page.goto(`${app.origin}/#/operator/institutions`);
    await page.getByRole('button', { name: 'New institution' }).first().click();
    await page.getByRole('dialog').getByLabel('Name').fill('Made after the backup');
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await page.getByRole('main').getByText('Made after the backup').waitFor();

    await page.goto(`${app.origin}/#/operator/backups`);
    const rows = page.getByRole('button', { name: /^Restore campusbridge-.*-manual\.sqlite$/ });
    await rows.first().waitFor();
    await rows.first().click(); // newest first
    await page.getByRole('dialog').getByRole('button', { name: 'Restore at next start' }).click();
    await page.getByRole('main').getByRole('alert').filter({ hasText: 'A restore is waiting' }).waitFor();

    await app.stop();
    app = { ...app, ...(await startTestAppliance({ dataDir: app.dataDir })) };
    const signed = await signIn(app, OPERATOR.admin_email, OPERATOR.admin_password);
    const again = portalRequests(
      () => signed,
      () => '/portal/api/operator',
    );
    expect(ok<Array<{ name: string }>>(await again.get('/institutions')).map((row) => row.name)).toEqual(['Hillcrest Academy']);
  });
});
