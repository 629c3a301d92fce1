// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * Importing people from a CSV file in Chromium (issue 16): a file of 1,000 students with a header,
 * quoted names holding the separator, a byte-order mark and 3 bad rows. The preview names the 3
 * problems in words before anything is written; the import goes in chunks to 100%; the result
 * file lists 997 created (with their login e-mails) and 3 rejected (with the reasons); the
 * students exist. Then group members from a semicolon-separated file without a header, and an
 * Excel workbook (.xlsx) through the same preview, with an old .xls refused in words.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import writeExcelFile from 'write-excel-file/node';
import { parseTable } from '../../ui/src/pages/imports/table.js';
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.js';
import { chromiumAvailable, launchChromium, openPage, signInOnPage, screenshotter, truncatedBadges } from '../helpers/browser.js';
import { setUpPortal, type FirstRun } from '../helpers/portal.js';

const ADMIN = { institution: 'Hillside Academy', admin_email: 'admin@hillside.test', admin_password: 'hillside admin pw' };

/** 1,000 data lines: names with commas in quotes, every 7th with a personal e-mail; lines 11, 501 and 901 (file lines 12, 502, 902) bad. */
function studentsCsv(): string {
  const lines = ['Full name,Student ID,Personal email'];
  for (let i = 1; i <= 1000; i += 1) {
    const id = `HS-${String(i).padStart(4, '0')}`;
    if (i === 11)
      lines.push(`,${id},`); // no name
    else if (i === 501)
      lines.push(`"Doe, Jane",${id},not-an-email`); // a bad e-mail
    else if (i === 901)
      lines.push(`"Roe, Richard",HS-0002,`); // a student ID already on line 3
    else lines.push(`"Learner, Number ${i}",${id},${i % 7 === 0 ? `family${i}@example.org` : ''}`);
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

describe.skipIf(!chromiumAvailable())('CSV imports in Chromium', () => {
  let app: TestAppliance;
  let browser: Browser;
  let portal: FirstRun;
  const shot = screenshotter('imports');

  beforeAll(async () => {
    [app, browser] = await Promise.all([startTestAppliance(), launchChromium()]);
    portal = await setUpPortal(app, ADMIN);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  async function signedIn(): Promise<{ page: Page; errors: string[] }> {
    const opened = await openPage(browser, { acceptDownloads: true });
    await signInOnPage(opened.page, app.origin, ADMIN.admin_email, ADMIN.admin_password);
    return opened;
  }

  it('imports 1,000 students from a CSV: preview with the 3 problems, progress to 100%, a result file of 997 created and 3 rejected', async () => {
    const { page, errors } = await signedIn();
    await page.goto(`${app.origin}/#/i/${portal.institutionId}/students`);
    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import students' });
    await dialog.getByLabel('CSV or Excel file').setInputFiles({ name: 'students.csv', mimeType: 'text/csv', buffer: Buffer.from(studentsCsv(), 'utf8') });

    await dialog.getByText('997 ready to import, 3 with a problem (not imported).').waitFor();
    await expect(dialog.getByRole('checkbox', { name: /first line is a header/ }).isChecked()).resolves.toBe(true);
    const problems = dialog.getByRole('table', { name: 'Problems' });
    await expect(problems.getByRole('row').count()).resolves.toBe(4); // a header and 3 lines
    await expect(problems.textContent()).resolves.toContain('The name is missing.');
    await expect(problems.textContent()).resolves.toContain('"not-an-email" is not an e-mail address.');
    await expect(problems.textContent()).resolves.toContain('Student ID HS-0002 is also on line 3.');
    // The quoted name kept its comma.
    await expect(dialog.getByRole('table', { name: 'Preview' }).textContent()).resolves.toContain('Learner, Number 1');
    await shot(page, 'preview');
    expect(await portal.institution.tenant.people.count({ where: { role: 'student' } })).toBe(0);

    await dialog.getByRole('button', { name: 'Import 997 students' }).click();
    await dialog.getByText('Done: 997 students created, 3 rejected.').waitFor({ timeout: 60_000 });
    await expect(dialog.getByRole('progressbar', { name: 'Import progress' }).getAttribute('aria-valuenow')).resolves.toBe('100');
    await shot(page, 'done');

    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download the result' }).click()]);
    const file = parseTable(fs.readFileSync((await download.path())!, 'utf8'));
    const [header, ...lines] = file.rows;
    expect(header).toEqual(['line', 'Name', 'Student ID', 'Personal e-mail', 'result', 'login email', 'reason']);
    expect(lines).toHaveLength(1000);
    const created = lines.filter((line) => line[4] === 'created');
    const rejected = lines.filter((line) => line[4] === 'rejected');
    expect(created).toHaveLength(997);
    expect(rejected.map((line) => [line[0], line[6]])).toEqual([
      ['12', 'The name is missing.'],
      ['502', '"not-an-email" is not an e-mail address.'],
      ['902', 'Student ID HS-0002 is also on line 3.'],
    ]);
    expect(created[0]).toEqual(['2', 'Learner, Number 1', 'HS-0001', '', 'created', expect.stringMatching(/^learner\.number\.1@/), '']);

    expect(await portal.institution.tenant.people.count({ where: { role: 'student' } })).toBe(997);
    const first = await portal.institution.tenant.people.findOne({ where: { external_id: 'HS-0001' } });
    expect(first?.full_name).toBe('Learner, Number 1');
    expect(first?.login_email).toBe(created[0]![5]);
    expect(errors).toEqual([]);
  });

  it("shows the licenses' holders by name, the id on hover, with one names request for the page", async () => {
    const { page, errors } = await signedIn();
    const namesRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/names?')) namesRequests.push(request.url());
    });
    await page.goto(`${app.origin}/#/i/${portal.institutionId}/licenses`);
    const table = page.getByRole('table', { name: 'Licenses' });
    await table
      .getByRole('link', { name: /^Learner, Number / })
      .first()
      .waitFor();
    const holders = table.getByRole('link', { name: /^Learner, Number / });
    await expect(holders.count()).resolves.toBeGreaterThan(10);
    await expect(holders.first().getAttribute('title')).resolves.toMatch(/^stu_/);
    await expect(table.textContent()).resolves.not.toMatch(/stu_[A-Za-z0-9]{24}/);
    expect(namesRequests).toHaveLength(1);
    // A page full of status badges at 1280 px: none cut short.
    expect(await truncatedBadges(page)).toEqual([]);
    await shot(page, 'licenses-by-name');
    expect(errors).toEqual([]);
  });

  it('stops where a chunk fails, and Resume goes on from that chunk without writing anything twice', async () => {
    const { page, errors } = await signedIn();
    const tenant = portal.institution.tenant;
    const before = await tenant.people.count({ where: { role: 'student' } });
    // The second bulk call fails once on the way to the appliance, as a dropped connection would.
    let calls = 0;
    await page.route('**/students/bulk', async (route) => {
      calls += 1;
      if (calls === 2) await route.abort('connectionreset');
      else await route.continue();
    });
    await page.goto(`${app.origin}/#/i/${portal.institutionId}/students`);
    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import students' });
    const rows = Array.from({ length: 450 }, (_, i) => `Resumed Learner ${i + 1};RS-${i + 1}`);
    await dialog.getByLabel('CSV or Excel file').setInputFiles({ name: 'resume.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n'), 'utf8') });
    await dialog.getByRole('button', { name: 'Import 450 students' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'The import stopped' }).waitFor();
    await dialog.getByText('Stopped after 200 of 450.').waitFor();
    await shot(page, 'stopped');
    expect(await tenant.people.count({ where: { role: 'student' } })).toBe(before + 200);

    await dialog.getByRole('button', { name: 'Resume' }).click();
    await dialog.getByText('Done: 450 students created, 0 rejected.').waitFor();
    expect(calls).toBe(4);
    expect(await tenant.people.count({ where: { role: 'student' } })).toBe(before + 450);
    expect(await tenant.people.count({ where: { external_id: 'RS-201' } })).toBe(1);
    expect(errors).toEqual([]);
  });

  it('imports faculty one request each, and reports a faculty ID already taken in words', async () => {
    const { page, errors } = await signedIn();
    const taken = await portal.agent
      .post(`/portal/api/institutions/${portal.institutionId}/faculty`)
      .set('X-CSRF-Token', portal.csrf)
      .send({ full_name: 'Already Here', faculty_id: 'F-TAKEN' });
    expect(taken.body.success, taken.text).toBe(true);
    await page.goto(`${app.origin}/#/i/${portal.institutionId}/faculty`);
    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import faculty members' });
    const text = 'Teacher,Staff ID\n"Hopper, Grace",F-1\nAlan Kay,F-TAKEN\nBarbara Liskov,\n';
    await dialog.getByLabel('CSV or Excel file').setInputFiles({ name: 'faculty.csv', mimeType: 'text/csv', buffer: Buffer.from(text, 'utf8') });
    await dialog.getByRole('button', { name: 'Import 3 faculty members' }).click();
    await dialog.getByText('Done: 2 faculty members created, 1 rejected.').waitFor();
    await expect(dialog.getByRole('table', { name: 'Rejected rows' }).textContent()).resolves.toContain(
      'Another faculty member already has Faculty ID "F-TAKEN".',
    );
    expect(await portal.institution.tenant.people.count({ where: { role: 'faculty', full_name: 'Hopper, Grace' } })).toBe(1);
    expect(errors).toEqual([]);
  });

  it('imports students from an Excel workbook (.xlsx) through the same preview, and refuses an old .xls in words', async () => {
    const { page, errors } = await signedIn();
    await page.goto(`${app.origin}/#/i/${portal.institutionId}/students`);
    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import students' });
    await expect(dialog.textContent()).resolves.toContain('Drop a CSV or Excel (.xlsx) file here');

    await dialog.getByLabel('CSV or Excel file').setInputFiles({ name: 'old.xls', mimeType: 'application/vnd.ms-excel', buffer: Buffer.from('not read') });
    await dialog
      .getByRole('alert')
      .filter({ hasText: 'old.xls is in the old Excel format (.xls), which cannot be read here. Save it as .xlsx or .csv.' })
      .waitFor();

    // Numeric IDs and a date column, as a school's own roster has them; the date is not imported.
    const workbook = await writeExcelFile([
      ['Full name', 'Student ID', 'Enrolled'],
      ['Sheet, Ana "Ace"', 2024001, { value: new Date(Date.UTC(2024, 8, 1)), format: 'dd/mm/yyyy' }],
      ['Sheet Ben', 2024002, { value: new Date(Date.UTC(2024, 8, 2)), format: 'dd/mm/yyyy' }],
      ['Sheet Cy', 2024003, null],
    ]).toBuffer();
    const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
    await dialog.getByLabel('CSV or Excel file').setInputFiles({ name: 'roster.xlsx', mimeType: xlsxType, buffer: workbook });
    await dialog.getByText('3 ready to import, 0 with a problem (not imported).').waitFor();
    await expect(dialog.textContent()).resolves.toContain('roster.xlsx: 3 rows, from its first sheet.');
    const preview = await dialog.getByRole('table', { name: 'Preview' }).textContent();
    expect(preview).toContain('Sheet, Ana "Ace"');
    expect(preview).toContain('2024001');
    expect(preview).not.toContain('2024001.0');
    await shot(page, 'xlsx-preview');

    await dialog.getByRole('button', { name: 'Another file' }).click();
    // A sheet over 512 KB is unzipped in a Web Worker (fflate), which the portal's CSP must let in,
    // or the dialog waits forever; only previewed, not imported.
    const big = [['Full name', 'Student ID'], ...Array.from({ length: 10_000 }, (_, i) => [`Large Roster Learner ${i + 1}`, 3_000_000 + i])];
    await dialog.getByLabel('CSV or Excel file').setInputFiles({ name: 'big.xlsx', mimeType: xlsxType, buffer: await writeExcelFile(big).toBuffer() });
    await dialog.getByText('10000 ready to import, 0 with a problem (not imported).').waitFor();
    await dialog.getByRole('button', { name: 'Another file' }).click();
    await dialog.getByLabel('CSV or Excel file').setInputFiles({ name: 'roster.xlsx', mimeType: xlsxType, buffer: workbook });
    await dialog.getByRole('button', { name: 'Import 3 students' }).click();
    await dialog.getByText('Done: 3 students created, 0 rejected.').waitFor();
    const ana = await portal.institution.tenant.people.findOne({ where: { external_id: '2024001' } });
    expect(ana?.full_name).toBe('Sheet, Ana "Ace"');
    expect(await portal.institution.tenant.people.count({ where: { external_id: ['2024002', '2024003'] } })).toBe(2);
    expect(errors).toEqual([]);
  });

  it('imports group members from a semicolon-separated file without a header, and says which were not found', async () => {
    const { page, errors } = await signedIn();
    const tenant = portal.institution.tenant;
    const members = await tenant.people.findAll({ where: { role: 'student' }, order: [['created_at', 'ASC']], limit: 3 });
    const owner = await portal.agent
      .post(`/portal/api/institutions/${portal.institutionId}/faculty`)
      .set('X-CSRF-Token', portal.csrf)
      .send({ full_name: 'Group Teacher' });
    const group = await portal.agent
      .post(`/portal/api/institutions/${portal.institutionId}/groups`)
      .set('X-CSRF-Token', portal.csrf)
      .send({ name: 'Imported class', faculty_id: owner.body.data.id });
    expect(group.body.success, group.text).toBe(true);

    await page.goto(`${app.origin}/#/i/${portal.institutionId}/groups/${group.body.data.id}`);
    await page.getByRole('button', { name: 'Import members' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import members' });
    const text = [...members.map((member) => `${member.login_email};x`), 'nobody@hillside.campusbridge.local;x'].join('\n');
    await dialog.getByLabel('CSV or Excel file').setInputFiles({ name: 'members.csv', mimeType: 'text/csv', buffer: Buffer.from(text, 'utf8') });
    await dialog.getByText('4 ready to import, 0 with a problem (not imported).').waitFor();
    await expect(dialog.getByRole('checkbox', { name: /first line is a header/ }).isChecked()).resolves.toBe(false);
    await dialog.getByRole('button', { name: 'Import 4 members' }).click();
    await dialog.getByText('Done: 3 members added, 1 rejected.').waitFor();
    await shot(page, 'members');
    expect(await tenant.groupMembers.count({ where: { group_id: group.body.data.id } })).toBe(3);
    expect(errors).toEqual([]);
  });
});
