// @tier browser
// @databases sqlite: the portal in Chromium; what its pages call is proven on both databases by the integration suites
/**
 * Importing people from a CSV file in Chromium (docs/decisions/portal-imports.md): a file of 1,000 students with a header,
 * quoted names holding the separator, a byte-order mark and 3 bad rows. The preview names the 3
 * problems in words before anything is written; the import goes in chunks to 100%; the result
 * file lists 997 created (with their login e-mails) and 3 rejected (with the reasons); the
 * students exist. Then group members from a semicolon-separated file without a header, and an
 * Excel workbook (.xlsx) through the same preview, with an old .xls refused in words. Then a
 * school's own files: a SIS export (student number, "Family, Given", homeroom) that places
 * existing students in new and existing groups and adds members by student number; a changed
 * faculty file re-imported in update mode; personal e-mails updated only when they changed; a
 * French export with Nom and Prénom. Names are stored "Given Family": "Learner, Number 7" is
 * "Number 7 Learner".
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
    // The quoted name kept its comma, and "Family, Given" is shown as it will be stored: "Given Family".
    await expect(dialog.getByRole('table', { name: 'Preview' }).textContent()).resolves.toContain('Number 1 Learner');
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
    expect(created[0]).toEqual(['2', 'Number 1 Learner', 'HS-0001', '', 'created', expect.stringMatching(/^number\.1\.learner@/), '']);

    expect(await portal.institution.tenant.people.count({ where: { role: 'student' } })).toBe(997);
    const first = await portal.institution.tenant.people.findOne({ where: { external_id: 'HS-0001' } });
    expect(first?.full_name).toBe('Number 1 Learner');
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
      .getByRole('link', { name: /^Number \d+ Learner$/ })
      .first()
      .waitFor();
    const holders = table.getByRole('link', { name: /^Number \d+ Learner$/ });
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

  it('imports faculty one request each, and reports in words a faculty ID taken after the preview', async () => {
    const { page, errors } = await signedIn();
    await page.goto(`${app.origin}/#/i/${portal.institutionId}/faculty`);
    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import faculty members' });
    const text = 'Teacher,Staff ID\n"Hopper, Grace",F-1\nAlan Kay,F-TAKEN\nBarbara Liskov,\n';
    await dialog.getByLabel('CSV or Excel file').setInputFiles({ name: 'faculty.csv', mimeType: 'text/csv', buffer: Buffer.from(text, 'utf8') });
    await dialog.getByText('3 ready to import, 0 with a problem (not imported).').waitFor();
    // Taken once the preview was made (an ID taken before it is a problem there, see the re-import test): the appliance refuses the row.
    const taken = await portal.agent
      .post(`/portal/api/institutions/${portal.institutionId}/faculty`)
      .set('X-CSRF-Token', portal.csrf)
      .send({ full_name: 'Already Here', faculty_id: 'F-TAKEN' });
    expect(taken.body.success, taken.text).toBe(true);
    await dialog.getByRole('button', { name: 'Import 3 faculty members' }).click();
    await dialog.getByText('Done: 2 faculty members created, 1 rejected.').waitFor();
    await expect(dialog.getByRole('table', { name: 'Rejected rows' }).textContent()).resolves.toContain(
      'Another faculty member already has Faculty ID "F-TAKEN".',
    );
    expect(await portal.institution.tenant.people.count({ where: { role: 'faculty', full_name: 'Grace Hopper' } })).toBe(1);
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
    expect(preview).toContain('Ana "Ace" Sheet');
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
    expect(ana?.full_name).toBe('Ana "Ace" Sheet');
    expect(await portal.institution.tenant.people.count({ where: { external_id: ['2024002', '2024003'] } })).toBe(2);
    expect(errors).toEqual([]);
  });

  it('imports group members from a semicolon-separated file without a header, and says in the preview which were not found', async () => {
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
    // The unknown address is found before anything is written, not refused after.
    await dialog.getByText('3 ready to import, 1 with a problem (not imported).').waitFor();
    await expect(dialog.getByRole('checkbox', { name: /first line is a header/ }).isChecked()).resolves.toBe(false);
    await expect(dialog.getByRole('table', { name: 'Problems' }).textContent()).resolves.toContain(
      'No student has the student number, login e-mail or id "nobody@hillside.campusbridge.local".',
    );
    await dialog.getByRole('button', { name: 'Import 3 members' }).click();
    await dialog.getByText('Done: 3 members added, 1 rejected.').waitFor();
    await shot(page, 'members');
    expect(await tenant.groupMembers.count({ where: { group_id: group.body.data.id } })).toBe(3);
    expect(errors).toEqual([]);
  });

  /** The institution's API through the portal, as the wizard reads and writes it. */
  const dataPath = (path: string) => `/portal/api/institutions/${portal.institutionId}${path}`;
  async function apiGet(path: string): Promise<any> {
    const res = await portal.agent.get(dataPath(path));
    expect(res.body.success, res.text).toBe(true);
    return res.body.data;
  }
  async function apiPost(path: string, body: object): Promise<any> {
    const res = await portal.agent.post(dataPath(path)).set('X-CSRF-Token', portal.csrf).send(body);
    expect(res.body.success, res.text).toBe(true);
    return res.body.data;
  }
  /** A group's members' names, sorted. */
  async function memberNames(groupId: string): Promise<string[]> {
    const group = await apiGet(`/groups/${groupId}`);
    return group.members.map((member: { full_name: string }) => member.full_name).sort();
  }
  async function openImport(page: Page, path: string, button: string, dialogName: string, file: { name: string; text: string }) {
    await page.goto(`${app.origin}/#/i/${portal.institutionId}${path}`);
    await page.getByRole('button', { name: button }).click();
    const dialog = page.getByRole('dialog', { name: dialogName });
    await dialog.getByLabel('CSV or Excel file').setInputFiles({ name: file.name, mimeType: 'text/csv', buffer: Buffer.from(file.text, 'utf8') });
    return dialog;
  }

  /** A SIS export: the school's student number, "Family, Given" names and the homeroom. */
  const SIS = [
    'Student Number,Student Name,Homeroom',
    '2025006,"Ashworth-Smythe, Liam",7b',
    '2025001,"Pupil, One",7A',
    '2025002,"Pupil, Two",7A',
    '2025003,"Pupil, Three",7B',
    '2025004,"Pupil, Four",HOMEROOM 8C',
    '2025005,"Pupil, Five",',
  ].join('\n');

  it('places students in their homerooms from a SIS export: existing students unchanged, new groups created with the owner chosen, an existing group matched without case', async () => {
    const { page, errors } = await signedIn();
    const teacher = await apiPost('/faculty', { full_name: 'Homeroom Teacher', faculty_id: 'HR-T' });
    const eightC = await apiPost('/groups', { name: 'Homeroom 8C', faculty_id: teacher.id });
    // Imported earlier, with the school's numbers.
    await apiPost('/students/bulk', {
      students: ['One', 'Two', 'Three', 'Four', 'Five'].map((given, i) => ({ full_name: `${given} Pupil`, student_id: `202500${i + 1}` })),
    });

    const dialog = await openImport(page, '/students', 'Import', 'Import students', { name: 'sis.csv', text: SIS });
    // Add-only: the students already here are problems in words, before anything is written.
    await dialog.getByText('1 ready to import, 5 with a problem (not imported).').waitFor();
    await expect(dialog.getByRole('table', { name: 'Problems' }).textContent()).resolves.toContain(
      `Student ID 2025001 is already One Pupil's; choose "Add new and update existing" to update.`,
    );
    await dialog.getByRole('radio', { name: 'Add new and update existing' }).check();
    await dialog.getByText('6 ready to import, 0 with a problem (not imported). Of these, 1 will be created, 0 updated, 5 unchanged.').waitFor();
    await dialog.getByText('Classes: 2 groups will be created (7b, 7A); 5 students will be placed in 3 groups.').waitFor();
    const preview = dialog.getByRole('table', { name: 'Preview' });
    await expect(preview.textContent()).resolves.toContain('Liam Ashworth-Smythe');
    await expect(preview.textContent()).resolves.not.toContain('Ashworth-Smythe, Liam');
    // New groups need an owner: the import waits for one.
    const importButton = dialog.getByRole('button', { name: 'Import 6 students' });
    await expect(importButton.isDisabled()).resolves.toBe(true);
    await dialog.getByLabel('Owner of the new groups').click();
    await page.getByRole('option', { name: /^Homeroom Teacher/ }).click();
    await expect(importButton.isDisabled()).resolves.toBe(false);
    await shot(page, 'sis-preview');

    await importButton.click();
    await dialog.getByText('Done: 1 student created, 0 updated, 5 unchanged, 0 rejected. 5 placed in classes, 2 groups created.').waitFor();
    await shot(page, 'sis-done');

    const groups: Array<{ id: string; name: string; faculty_id: string }> = (await apiGet('/groups?limit=200')).items;
    const named = (name: string) => groups.filter((group) => group.name.toLowerCase() === name.toLowerCase());
    expect(named('7b').map((group) => group.name)).toEqual(['7b']); // as the file first spells it
    expect(named('7A')).toHaveLength(1);
    expect(named('Homeroom 8C').map((group) => group.id)).toEqual([eightC.id]); // matched, not made again
    expect(named('7A')[0]!.faculty_id).toBe(teacher.id);
    await expect(memberNames(named('7A')[0]!.id)).resolves.toEqual(['One Pupil', 'Two Pupil']);
    await expect(memberNames(named('7b')[0]!.id)).resolves.toEqual(['Liam Ashworth-Smythe', 'Three Pupil']);
    await expect(memberNames(eightC.id)).resolves.toEqual(['Four Pupil']);
    const liam = await apiGet('/students?student_id=2025006');
    expect(liam.items.map((student: { full_name: string }) => student.full_name)).toEqual(['Liam Ashworth-Smythe']);
    expect(errors).toEqual([]);
  });

  it("imports group members by the school's student number from the same SIS export, with an unknown number a problem in the preview", async () => {
    const { page, errors } = await signedIn();
    const owner = (await apiGet('/faculty?limit=200')).items.find((teacher: { faculty_id: string | null }) => teacher.faculty_id === 'HR-T');
    const club = await apiPost('/groups', { name: 'Chess club', faculty_id: owner.id });
    const dialog = await openImport(page, `/groups/${club.id}`, 'Import members', 'Import members', {
      name: 'sis.csv',
      text: `${SIS}\n2025999,"Nobody, Known",7A\n`,
    });
    await dialog.getByText('6 ready to import, 1 with a problem (not imported).').waitFor();
    await expect(dialog.getByRole('table', { name: 'Problems' }).textContent()).resolves.toContain(
      'No student has the student number, login e-mail or id "2025999".',
    );
    // Each number is shown with the student it found.
    await expect(dialog.getByRole('table', { name: 'Preview' }).textContent()).resolves.toContain('added (Liam Ashworth-Smythe)');
    await shot(page, 'members-by-number');
    await dialog.getByRole('button', { name: 'Import 6 members' }).click();
    await dialog.getByText('Done: 6 members added, 1 rejected.').waitFor();
    await expect(memberNames(club.id)).resolves.toEqual(['Five Pupil', 'Four Pupil', 'Liam Ashworth-Smythe', 'One Pupil', 'Three Pupil', 'Two Pupil']);
    expect(errors).toEqual([]);
  });

  it('re-imports a changed faculty file in update mode: the preview counts created, updated and unchanged, and the new names are stored', async () => {
    const { page, errors } = await signedIn();
    for (const [full_name, faculty_id] of [
      ['Grace Hoper', 'T-100'],
      ['Alan Kay', 'T-101'],
      ['Edsger Dijkstra', 'T-102'],
    ]) {
      await apiPost('/faculty', { full_name, faculty_id });
    }
    const text = 'Name,Faculty ID\n"Hopper, Grace",T-100\nAlan Kay,T-101\n"Dijkstra, Edsger W.",T-102\nFrances Allen,T-103\n';
    const dialog = await openImport(page, '/faculty', 'Import', 'Import faculty members', { name: 'faculty-2027.csv', text });
    await dialog.getByText('1 ready to import, 3 with a problem (not imported).').waitFor();
    await expect(dialog.getByRole('table', { name: 'Problems' }).textContent()).resolves.toContain(
      `Faculty ID T-100 is already Grace Hoper's; choose "Add new and update existing" to update.`,
    );
    await dialog.getByRole('radio', { name: 'Add new and update existing' }).check();
    await dialog.getByText('4 ready to import, 0 with a problem (not imported). Of these, 1 will be created, 2 updated (name 2), 1 unchanged.').waitFor();
    const updates = await dialog.getByRole('table', { name: 'Updates' }).textContent();
    expect(updates).toContain('name: Grace Hoper → Grace Hopper');
    expect(updates).toContain('name: Edsger Dijkstra → Edsger W. Dijkstra');
    await shot(page, 'faculty-update-preview');

    await dialog.getByRole('button', { name: 'Import 4 faculty members' }).click();
    await dialog.getByText('Done: 1 faculty member created, 2 updated, 1 unchanged, 0 rejected.').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download the result' }).click()]);
    const [header, ...lines] = parseTable(fs.readFileSync((await download.path())!, 'utf8')).rows;
    expect(header).toEqual(['line', 'Name', 'Faculty ID', 'result', 'login email', 'changed', 'reason']);
    expect(lines.map((line) => [line[0], line[1], line[3], line[5]])).toEqual([
      ['2', 'Grace Hopper', 'updated', 'name'],
      ['3', 'Alan Kay', 'unchanged', ''],
      ['4', 'Edsger W. Dijkstra', 'updated', 'name'],
      ['5', 'Frances Allen', 'created', ''],
    ]);
    // The login e-mail stays what it was made from: it is a stable id.
    expect(lines[0]![4]).toMatch(/^grace\.hoper@/);

    const faculty: Array<{ full_name: string; faculty_id: string | null }> = (await apiGet('/faculty?limit=200')).items;
    const byId = new Map(faculty.map((teacher) => [teacher.faculty_id, teacher.full_name]));
    expect([byId.get('T-100'), byId.get('T-101'), byId.get('T-102'), byId.get('T-103')]).toEqual([
      'Grace Hopper',
      'Alan Kay',
      'Edsger W. Dijkstra',
      'Frances Allen',
    ]);
    expect(errors).toEqual([]);
  });

  it("updates a student's personal e-mail only when the file's differs, compared by the appliance without showing it", async () => {
    const { page, errors } = await signedIn();
    await apiPost('/students/bulk', {
      students: [
        { full_name: 'Mail Same', student_id: 'PM-1', personal_email: 'same.family@example.org' },
        { full_name: 'Mail Moved', student_id: 'PM-2', personal_email: 'old.family@example.org' },
      ],
    });
    const text = 'Name,Student ID,Personal email\nMail Same,PM-1,SAME.family@example.org\nMail Moved,PM-2,new.family@example.org\n';
    const dialog = await openImport(page, '/students', 'Import', 'Import students', { name: 'mail.csv', text });
    await dialog.getByRole('radio', { name: 'Add new and update existing' }).check();
    await dialog.getByText('Of these, 0 will be created, 1 updated (personal e-mail 1), 1 unchanged.').waitFor();
    await expect(dialog.getByRole('table', { name: 'Updates' }).textContent()).resolves.not.toContain('old.family@example.org');
    await dialog.getByRole('button', { name: 'Import 2 students' }).click();
    await dialog.getByText('Done: 0 students created, 1 updated, 1 unchanged, 0 rejected.').waitFor();
    // The `email` filter matches a personal e-mail (docs/api.md): the new one is stored, the old one is gone.
    await expect(apiGet('/students?email=new.family@example.org')).resolves.toMatchObject({ total: 1, items: [{ student_id: 'PM-2' }] });
    await expect(apiGet('/students?email=old.family@example.org')).resolves.toMatchObject({ total: 0 });
    expect(errors).toEqual([]);
  });

  it("joins a French export's separate Nom and Prénom columns, and warns before importing half names when Prénom is not chosen", async () => {
    const { page, errors } = await signedIn();
    const text = 'Nom;Prénom;Matricule\nDupont;Marie;FR-1\nMartin;Lucas;FR-2\n';
    const dialog = await openImport(page, '/students', 'Import', 'Import students', { name: 'eleves.csv', text });
    await dialog.getByText('2 ready to import, 0 with a problem (not imported).').waitFor();
    await expect(dialog.textContent()).resolves.toContain('eleves.csv: 2 rows, separated by “;”.');
    await expect(dialog.getByRole('table', { name: 'Preview' }).textContent()).resolves.toContain('Marie Dupont');

    // Without the given name, the preview says so and the import waits to be told.
    await dialog.getByLabel('Given name', { exact: true }).click();
    await page.getByRole('option', { name: 'Column 2 (Prénom)' }).click();
    const warning = dialog.getByRole('alert').filter({ hasText: 'Half names?' });
    await warning
      .getByText(
        'Only the family name is chosen, but column 2 ("Prénom") looks like the given name. Choose it as Given name, or each name will be the family name alone.',
      )
      .waitFor();
    const importButton = dialog.getByRole('button', { name: 'Import 2 students' });
    await expect(importButton.isDisabled()).resolves.toBe(true);
    await shot(page, 'names-warning');
    await warning.getByRole('checkbox', { name: 'Import the names as the preview shows them' }).check();
    await expect(importButton.isDisabled()).resolves.toBe(false);

    // Choosing Prénom again settles it.
    await dialog.getByLabel('Given name', { exact: true }).click();
    await page.getByRole('option', { name: 'Column 2 (Prénom)' }).click();
    await expect(warning.count()).resolves.toBe(0);
    await importButton.click();
    await dialog.getByText('Done: 2 students created, 0 rejected.').waitFor();
    const stored = await Promise.all(['FR-1', 'FR-2'].map(async (id) => (await apiGet(`/students?student_id=${id}`)).items[0].full_name));
    expect(stored).toEqual(['Marie Dupont', 'Lucas Martin']);
    expect(errors).toEqual([]);
  });
});
