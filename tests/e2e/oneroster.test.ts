// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * The OneRoster set-up pages in Chromium (docs/lms.md#oneroster): an admin connects the institution to a SIS
 * (the provider written from the 1EdTech specifications, on 127.0.0.1), tests the connection,
 * dry-runs, syncs, is held back by the guard and applies the sync after confirming, and reads the
 * runs; then imports a OneRoster CSV zip (a dry run, the import, one held back by the guard and
 * applied anyway, a broken zip refused by file and line). Screenshots go to tests/artifacts/oneroster/.
 */
import { strToU8, zipSync } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeApplianceSetting } from '../../server/settings/appliance-settings.js';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, screenshotter, signInOnPage, truncatedBadges } from '../helpers/browser.js';
import { OneRosterProvider, seedSchool } from '../helpers/oneroster-provider.js';
import { setUpPortal } from '../helpers/portal.js';

const ADMIN = { institution: 'Riverside High', admin_email: 'it@riverside.test', admin_password: 'riverside admin pw' };

/** A bulk OneRoster 1.1 CSV export (the 1EdTech CSV binding's headers): two students and their teacher in one class. */
const CSV_USERS = [
  'sourcedId,status,dateLastModified,enabledUser,orgSourcedIds,role,username,userIds,givenName,familyName,middleName,identifier,email,sms,phone,agentSourcedIds,grades,password',
  'csv-t1,,,true,org1,teacher,mcurie,,Marie,Curie,,CSV-T1,marie.curie@riverside.example,,,,,',
  'csv-s1,,,true,org1,student,lmeitner,,Lise,Meitner,,CSV-S1,lise.meitner@home.example,,,,9,',
  'csv-s2,,,true,org1,student,rfranklin,,Rosalind,Franklin,,CSV-S2,rosalind.franklin@home.example,,,,9,',
];
const CSV_ENROLLMENTS = [
  'sourcedId,status,dateLastModified,classSourcedId,schoolSourcedId,userSourcedId,role,primary,beginDate,endDate',
  'csv-e1,,,csv-c1,org1,csv-t1,teacher,true,,',
  'csv-e2,,,csv-c1,org1,csv-s1,student,false,,',
  'csv-e3,,,csv-c1,org1,csv-s2,student,false,,',
];
function rosterZip(users: string[], enrollments = CSV_ENROLLMENTS): Buffer {
  const files: Record<string, string> = {
    'manifest.csv': [
      'propertyName,value',
      'manifest.version,1.0',
      'oneroster.version,1.1',
      'file.academicSessions,absent',
      'file.categories,absent',
      'file.classes,bulk',
      'file.classResources,absent',
      'file.courses,absent',
      'file.courseResources,absent',
      'file.demographics,absent',
      'file.enrollments,bulk',
      'file.lineItems,absent',
      'file.orgs,absent',
      'file.resources,absent',
      'file.results,absent',
      'file.users,bulk',
    ].join('\r\n'),
    'users.csv': users.join('\r\n'),
    'classes.csv': [
      'sourcedId,status,dateLastModified,title,grades,courseSourcedId,classCode,classType,location,schoolSourcedId,termSourcedIds,subjects,subjectCodes,periods',
      'csv-c1,,,Chemistry 9,9,crs1,CH9,scheduled,Lab 2,org1,term1,,,3',
    ].join('\r\n'),
    'enrollments.csv': enrollments.join('\r\n'),
  };
  return Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)]))));
}

describe.skipIf(!chromiumAvailable())('OneRoster pages in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  let page: Page;
  let provider: OneRosterProvider;
  let institutionId = '';
  const shot = screenshotter('oneroster');
  const pageErrors: string[] = [];

  beforeAll(async () => {
    [app, browser, provider] = await Promise.all([startTestAppliance(), launchChromium(), new OneRosterProvider().start()]);
    await writeApplianceSetting(app.ctx.db, 'outbound_private_hosts', 'all');
    seedSchool(provider, { students: 48, teachers: 2, classes: 2 });
    institutionId = (await setUpPortal(app, ADMIN)).institutionId;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await Promise.all([app?.close(), provider?.close()]);
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && page) await shot(page, `failed-${context.task.name.replace(/\W+/g, '-')}`);
  });

  const main = () => page.getByRole('main');

  it('connects from the navigation, and refuses a bad URL in words under the field', async () => {
    await signInOnPage(page, app.origin, ADMIN.admin_email, ADMIN.admin_password);
    await page.getByRole('link', { name: 'OneRoster' }).click();
    await main().getByRole('heading', { name: 'OneRoster', exact: true }).waitFor();
    await main().getByText('No sync has run yet.').waitFor();
    await shot(page, 'empty');

    await main().getByLabel('Base URL').fill('not a url');
    await main().getByLabel('Client ID').fill(provider.clientId);
    await main().getByLabel('Client secret').fill(provider.clientSecret);
    await main().getByRole('button', { name: 'Connect', exact: true }).click();
    await main()
      .getByText(/Base URL.*valid absolute URL/)
      .waitFor();

    await main().getByLabel('Base URL').fill(provider.url);
    await main().getByLabel('Token URL').fill(provider.tokenUrl);
    await main().getByText('In the form body').click();
    await main().getByLabel('Sync every (hours)').fill('12');
    // Tried before it is saved: a wrong secret fails in the SIS's words, the right one answers; nothing is stored yet.
    await main().getByLabel('Client secret').fill('not the secret');
    await main().getByRole('button', { name: 'Test connection' }).click();
    await main().getByRole('status').filter({ hasText: 'The connection failed' }).waitFor();
    await main().getByLabel('Client secret').fill(provider.clientSecret);
    await main().getByRole('button', { name: 'Test connection' }).click();
    await main().getByRole('status').filter({ hasText: 'The SIS answered' }).filter({ hasText: '51 in all' }).waitFor();
    expect(await app.ctx.db.models.OneRosterConnection.count({ where: { institution_id: institutionId } })).toBe(0);
    await main().getByText('matched to a student or teacher this school has').waitFor();
    await main().getByRole('button', { name: 'Connect', exact: true }).click();
    await main().getByRole('button', { name: 'Save connection' }).waitFor();
    await main().getByText('A secret is stored; leave empty to keep it.').waitFor();
    expect(await main().getByLabel('Client secret').inputValue()).toBe('');
    const row = await app.ctx.db.models.OneRosterConnection.findOne({ where: { institution_id: institutionId } });
    expect(row).toMatchObject({ url: provider.url, auth_method: 'form', schedule_hours: 12 });
    await shot(page, 'connected');
  });

  it('tests the connection, dry-runs without changing anything, then syncs', async () => {
    await main().getByRole('button', { name: 'Test connection' }).click();
    await main().getByRole('status').filter({ hasText: 'The SIS answered' }).filter({ hasText: '51 in all' }).waitFor();
    expect(provider.tokenAuth).toContain('form');

    await main().getByRole('region', { name: 'Sync' }).getByRole('button', { name: 'Dry run' }).click();
    await main()
      .getByRole('status')
      .filter({ hasText: 'Dry run: nothing was changed' })
      .filter({ hasText: '48 students, 2 faculty, 2 groups created' })
      .waitFor();
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: institutionId } })).toBe(0);
    await shot(page, 'dry-run');

    await main().getByRole('button', { name: 'Sync now' }).click();
    await main().getByRole('status').filter({ hasText: 'Applied' }).filter({ hasText: '48 memberships added' }).waitFor();
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: institutionId, role: 'student' } })).toBe(48);
    await shot(page, 'synced');
  });

  it('a sync that would suspend a quarter of the school (half of one class) is held back until the admin confirms it', async () => {
    for (const user of provider.users.filter((row) => row.role === 'student' && Number(row.sourcedId.slice(2)) % 2 === 0).slice(0, 12)) {
      Object.assign(user, { status: 'tobedeleted', dateLastModified: '2026-06-01T00:00:00.000Z' });
    }
    await main().getByRole('button', { name: 'Sync now' }).click();
    const held = main().getByRole('status').filter({ hasText: 'Held back: nothing was changed' });
    // 12 of 48 students is past the school's 10% before any class's 25%: the reason names the first rule broken.
    await held.filter({ hasText: "It would suspend 12 of the school's 48 active students, more than 10%." }).waitFor();
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: institutionId, status: 'suspended' } })).toBe(0);
    await page.getByRole('alert').filter({ hasText: 'The last sync was held back' }).waitFor();
    await shot(page, 'held-back');

    await held.getByRole('button', { name: 'Review and apply…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Apply the held-back sync?' });
    await dialog.waitFor();
    await shot(page, 'confirm');
    await dialog.getByRole('button', { name: 'Apply the sync' }).click();
    await main().getByRole('status').filter({ hasText: 'Applied' }).filter({ hasText: '12 students, 0 faculty suspended' }).waitFor();
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: institutionId, status: 'suspended' } })).toBe(12);

    const runs = main().getByRole('table', { name: 'Sync runs' });
    await expect.poll(() => runs.getByRole('row').count()).toBe(5);
    await runs.getByRole('row').nth(1).getByText('Applied').waitFor();
    await runs.getByRole('row').nth(2).getByText('Held back').waitFor();
    await runs.getByRole('row').nth(4).getByText('Dry run').waitFor();
    expect(await truncatedBadges(page)).toEqual([]);
    await shot(page, 'runs');
  });

  it('disconnects after a confirmation; the people stay', async () => {
    await main().getByRole('button', { name: 'Disconnect' }).click();
    const dialog = page.getByRole('dialog', { name: 'Disconnect from the SIS?' });
    await dialog.getByRole('button', { name: 'Disconnect' }).click();
    await main().getByRole('button', { name: 'Connect', exact: true }).waitFor();
    await main().getByText('No sync has run yet.').waitFor();
    expect(await main().getByLabel('Base URL').inputValue()).toBe('');
    expect(await app.ctx.db.models.OneRosterConnection.count({ where: { institution_id: institutionId } })).toBe(0);
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: institutionId, role: 'student' } })).toBe(48);
  });

  it('imports a OneRoster CSV zip: a dry run counts it, the import applies it, one past the guard is applied anyway, a broken zip is refused by file and line', async () => {
    // The disconnection's toast gone first, so that the screenshots show the results whole.
    await page.getByText('Disconnected from the SIS.').waitFor({ state: 'hidden' });
    const csv = main().getByRole('region', { name: 'Import a OneRoster CSV zip' });
    const zipInput = csv.locator('input[type="file"]');
    await zipInput.setInputFiles({ name: 'riverside-roster.zip', mimeType: 'application/zip', buffer: rosterZip(CSV_USERS) });
    await csv.getByText('riverside-roster.zip').waitFor();

    await csv.getByRole('button', { name: 'Dry run' }).click();
    await csv
      .getByRole('status')
      .filter({ hasText: 'Dry run: nothing was changed' })
      .filter({ hasText: '2 students, 1 faculty, 1 groups created' })
      .filter({ hasText: '2 memberships added' })
      .waitFor();
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: institutionId, external_id: ['CSV-S1', 'CSV-S2', 'CSV-T1'] } })).toBe(0);
    await shot(page, 'csv-dry-run');

    await csv.getByRole('button', { name: 'Import', exact: true }).click();
    await csv.getByRole('status').filter({ hasText: 'Applied' }).filter({ hasText: '2 students, 1 faculty, 1 groups created' }).waitFor();
    const made = await app.ctx.db.models.Person.findAll({ where: { institution_id: institutionId, external_id: ['CSV-S1', 'CSV-S2', 'CSV-T1'] } });
    expect(made.map((person) => `${person.role} ${person.full_name} ${person.status}`).sort()).toEqual([
      'faculty Marie Curie active',
      'student Lise Meitner active',
      'student Rosalind Franklin active',
    ]);
    expect(await app.ctx.db.models.Group.count({ where: { institution_id: institutionId, name: 'Chemistry 9' } })).toBe(1);
    // The REST students synced before stay: a bulk import suspends only what an import or sync of this connection made.
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: institutionId, role: 'student', status: 'active' } })).toBe(38);

    // The import made a CSV connection: the runs list names it, the form offers to connect the REST API instead.
    const runs = main().getByRole('table', { name: 'Sync runs' });
    await runs.getByRole('row').nth(1).getByText('CSV import (portal)').waitFor();
    await expect.poll(() => runs.getByRole('row').count()).toBe(3);
    await main().getByText("Rosters come from CSV imports. Connect the SIS's REST API below to sync through it instead.").waitFor();
    await main().getByRole('button', { name: 'Connect', exact: true }).waitFor();
    expect(await main().getByRole('region', { name: 'Sync' }).count()).toBe(0);
    expect(await app.ctx.db.models.OneRosterConnection.findOne({ where: { institution_id: institutionId } })).toMatchObject({ source: 'csv', url: '' });
    await shot(page, 'csv-imported');

    // A bulk zip without Rosalind Franklin, past a school guard set low: held back until the admin applies it anyway.
    await app.ctx.db.models.OneRosterConnection.update({ school_share: 0.01 }, { where: { institution_id: institutionId } });
    await zipInput.setInputFiles({
      name: 'riverside-roster-2.zip',
      mimeType: 'application/zip',
      buffer: rosterZip(CSV_USERS.slice(0, 3), CSV_ENROLLMENTS.slice(0, 3)),
    });
    await csv.getByRole('button', { name: 'Import', exact: true }).click();
    const held = csv.getByRole('status').filter({ hasText: 'Held back: nothing was changed' });
    await held.filter({ hasText: "It would suspend 1 of the school's 38 active students, more than 1%." }).waitFor();
    await main().getByRole('alert').filter({ hasText: 'The last CSV import was held back' }).waitFor();
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: institutionId, external_id: 'CSV-S2', status: 'active' } })).toBe(1);
    await shot(page, 'csv-held-back');
    await held.getByRole('button', { name: 'Apply anyway' }).click();
    const dialog = page.getByRole('dialog', { name: 'Apply the held-back import?' });
    await dialog.getByRole('button', { name: 'Apply the import' }).click();
    await csv
      .getByRole('status')
      .filter({ hasText: 'Applied' })
      .filter({ hasText: '1 students, 0 faculty suspended' })
      .filter({ hasText: '1 removed' })
      .waitFor();
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: institutionId, external_id: 'CSV-S2', status: 'suspended' } })).toBe(1);
    await expect.poll(() => runs.getByRole('row').count()).toBe(5);
    expect(await main().getByRole('alert').filter({ hasText: 'held back' }).count()).toBe(0);

    await zipInput.setInputFiles({
      name: 'broken-roster.zip',
      mimeType: 'application/zip',
      buffer: rosterZip([...CSV_USERS, ',,,true,org1,student,nobody,,No,Body,,CSV-S3,no.body@home.example,,,,9,']),
    });
    await csv.getByRole('button', { name: 'Import', exact: true }).click();
    const refused = csv.getByRole('alert').filter({ hasText: 'The zip was not imported' });
    await refused.filter({ hasText: 'users.csv:5: sourcedId is empty' }).filter({ hasText: 'Nothing was changed.' }).waitFor();
    expect(await app.ctx.db.models.Person.count({ where: { institution_id: institutionId, external_id: 'CSV-S3' } })).toBe(0);
    await expect.poll(() => runs.getByRole('row').count()).toBe(5);
    await shot(page, 'csv-refused');
  });
});
