// @tier unit
// The portal's CSV import, below the browser: how a file is read (papaparse: quotes, BOM,
// separators), when its first line is taken for a header, which column feeds which field, and
// what each row's problem is, in words (ui/src/pages/imports/).
import { describe, expect, it } from 'vitest';
import { facultyImport, inWords, memberImport, planRows, studentImport } from '../ui/src/pages/imports/kinds.js';
import { EMPTY_CONTEXT, indexContext } from '../ui/src/pages/imports/roster.js';
import { guessMapping, looksLikeHeader, parseTable, toCsv } from '../ui/src/pages/imports/table.js';

describe('parseTable', () => {
  it('reads quoted cells holding the separator, quotes and line breaks, and drops the byte-order mark and empty lines', () => {
    const table = parseTable('\uFEFFName,Student ID\r\n"Smith, John",S-1\r\n\r\n"Say ""hi""",S-2\r\n"Two\nLines",S-3\r\n');
    expect(table.delimiter).toBe(',');
    expect(table.rows).toEqual([
      ['Name', 'Student ID'],
      ['Smith, John', 'S-1'],
      ['Say "hi"', 'S-2'],
      ['Two\nLines', 'S-3'],
    ]);
  });

  it('guesses ; and tab as separators, and trims cells', () => {
    expect(parseTable('Müller, Anna; M-1 ;x\nDupont; D-2;y').rows).toEqual([
      ['Müller, Anna', 'M-1', 'x'],
      ['Dupont', 'D-2', 'y'],
    ]);
    expect(parseTable('a\tb\nc\td').delimiter).toBe('\t');
  });

  it('writes back what it reads', () => {
    const rows = [
      ['line', 'Name'],
      ['2', 'Smith, "J"'],
    ];
    expect(parseTable(toCsv(rows)).rows).toEqual(rows);
  });
});

describe('header and mapping', () => {
  it('takes a first line naming a field for a header, but not a line of data', () => {
    expect(looksLikeHeader(['Full name', 'Student number', 'E-mail'], studentImport.fields)).toBe(true);
    expect(looksLikeHeader(['Ada Lovelace', 'S-1', 'ada@example.org'], studentImport.fields)).toBe(false);
    expect(looksLikeHeader(['Name', 'ada@example.org'], studentImport.fields)).toBe(false);
  });

  it('maps columns by their titles in any order, or by position without a header', () => {
    const unmapped = { given_name: null, family_name: null, class: null };
    expect(guessMapping(studentImport.fields, ['E-mail', 'Name', 'Notes', 'Student ID'], 4)).toEqual({
      ...unmapped,
      full_name: 1,
      external_id: 3,
      personal_email: 0,
    });
    expect(guessMapping(studentImport.fields, ['Name', 'Notes'], 2)).toEqual({ ...unmapped, full_name: 0, external_id: null, personal_email: null });
    // Without a header, the given and family names and the class (title-only fields) take no column by position.
    expect(guessMapping(studentImport.fields, null, 4)).toEqual({ ...unmapped, full_name: 0, external_id: 1, personal_email: 2 });
  });
});

describe('planRows', () => {
  it("numbers lines as the file does and names each row's problem in words", () => {
    const rows = [
      ['Name', 'ID', 'Email'],
      ['Ada', 'S-1', ''],
      ['', 'S-2', ''],
      ['Alan', 'S-1', ''],
      ['Grace', 'S-3', 'grace(at)example.org'],
      ['x'.repeat(201), '', ''],
      ['Edsger', 'y'.repeat(101), ''],
    ];
    const planned = planRows(studentImport, rows, true, { full_name: 0, given_name: null, family_name: null, external_id: 1, personal_email: 2, class: null });
    expect(planned.map((row) => [row.line, row.problem])).toEqual([
      [2, null],
      [3, 'The name is missing.'],
      [4, 'Student ID S-1 is also on line 2.'],
      [5, '"grace(at)example.org" is not an e-mail address.'],
      [6, 'The name is longer than 200 characters.'],
      [7, 'The student ID is longer than 100 characters.'],
    ]);
    expect(planned[0]!.values).toEqual({ full_name: 'Ada', given_name: '', family_name: '', external_id: 'S-1', personal_email: '', class: '' });
  });

  it('checks faculty IDs and group members the same way', () => {
    const faculty = planRows(
      facultyImport,
      [
        ['Tim', 'F-1'],
        ['Tom', 'F-1'],
      ],
      false,
      { full_name: 0, given_name: null, family_name: null, external_id: 1 },
    );
    expect(faculty.map((row) => row.problem)).toEqual([null, 'Faculty ID F-1 is also on line 1.']);
    const ada = { id: 'stu_a', login_email: 'a@x.test', full_name: 'Ada', external_id: null };
    const index = indexContext({ ...EMPTY_CONTEXT, people: [ada] });
    const members = planRows(memberImport('grp_x'), [['a@x.test'], [''], ['a@x.test']], false, { student: 0 }, { mode: 'add', index, sameEmail: new Map() });
    expect(members.map((row) => row.problem)).toEqual([null, 'The student is missing.', 'a@x.test is also on line 1.']);
  });

  it("puts the API's field names of a refusal in the portal's words", () => {
    expect(inWords('Another student already has student_id "S-1".')).toBe('Another student already has Student ID "S-1".');
    expect(inWords('full_name: Too long')).toBe('Name: too long');
    expect(inWords('personal_email: Invalid email address')).toBe('Personal e-mail: that is not an e-mail address');
  });
});
