// @tier unit
// Excel workbooks in the portal's import (docs/decisions/portal-imports.md): a real .xlsx, written by write-excel-file,
// read by read-excel-file and turned into the rows of text the CSV path gives, so the header,
// mapping and checks are the same; .xls and other files are refused in words.
import { readSheet } from 'read-excel-file/node';
import writeExcelFile from 'write-excel-file/node';
import { describe, expect, it } from 'vitest';
import { planRows, studentImport } from '../ui/src/pages/imports/kinds.js';
import { readImportFile } from '../ui/src/pages/imports/readFile.js';
import { guessMapping, looksLikeHeader, sheetRows, type SheetCell } from '../ui/src/pages/imports/table.js';

/** A roster as a school keeps it: numeric IDs, a date shown day-first, a name with a comma and quotes, an empty row. */
async function rosterXlsx(): Promise<Buffer> {
  return writeExcelFile([
    ['Full name', 'Student ID', 'Personal email', 'Enrolled'],
    ['Smith, John "Johnny"', 2024001, 'john@example.org', { value: new Date(Date.UTC(2024, 8, 1)), format: 'dd/mm/yyyy' }],
    [null, null, null, null],
    ['Ada Lovelace', 2024002, null, 1.5],
  ]).toBuffer();
}

describe('sheetRows', () => {
  it('reads a real .xlsx into the text a person sees: whole numbers without ".0", dates as YYYY-MM-DD, no empty rows', async () => {
    // The Node entry: the portal's browser entry reads the same file in a Web Worker.
    const rows = sheetRows((await readSheet(await rosterXlsx())) as unknown as SheetCell[][]);
    expect(rows).toEqual([
      ['Full name', 'Student ID', 'Personal email', 'Enrolled'],
      ['Smith, John "Johnny"', '2024001', 'john@example.org', '2024-09-01'],
      ['Ada Lovelace', '2024002', '', '1.5'],
    ]);
    expect(looksLikeHeader(rows[0], studentImport.fields)).toBe(true);
    const mapping = guessMapping(studentImport.fields, rows[0]!, 4);
    expect(mapping).toEqual({ full_name: 0, given_name: null, family_name: null, external_id: 1, personal_email: 2, class: null });
    const planned = planRows(studentImport, rows, true, mapping);
    const unmapped = { given_name: '', family_name: '', class: '' };
    // "Family, Given" is stored as "Given Family" (ui/src/pages/imports/names.ts).
    expect(planned.map((row) => [row.line, row.problem, row.values])).toEqual([
      [2, null, { ...unmapped, full_name: 'John "Johnny" Smith', external_id: '2024001', personal_email: 'john@example.org' }],
      [3, null, { ...unmapped, full_name: 'Ada Lovelace', external_id: '2024002', personal_email: '' }],
    ]);
  });

  it('gives booleans and empty cells as a spreadsheet shows them, and trims text', () => {
    expect(sheetRows([[true, false, null, '  x  ', 0]])).toEqual([['TRUE', 'FALSE', '', 'x', '0']]);
  });
});

describe('readImportFile', () => {
  it('refuses an old .xls and other files with what to do', async () => {
    await expect(readImportFile(new File(['x'], 'roster.xls', { type: 'application/vnd.ms-excel' }))).rejects.toThrow(
      'roster.xls is in the old Excel format (.xls), which cannot be read here. Save it as .xlsx or .csv.',
    );
    await expect(readImportFile(new File(['x'], 'roster.pdf', { type: 'application/pdf' }))).rejects.toThrow(
      'roster.pdf is not a CSV or Excel file. Save it as .xlsx or .csv.',
    );
  });

  it('reads a .csv as CSV even when Windows labels it application/vnd.ms-excel', async () => {
    const table = await readImportFile(new File(['Name;ID\nAda;S-1\n'], 'roster.csv', { type: 'application/vnd.ms-excel' }));
    expect(table).toEqual({
      rows: [
        ['Name', 'ID'],
        ['Ada', 'S-1'],
      ],
      delimiter: ';',
    });
  });

  it('says so when a file named .xlsx is not a workbook', async () => {
    await expect(readImportFile(new File(['Name,ID'], 'roster.xlsx'))).rejects.toThrow('roster.xlsx could not be read as an Excel workbook.');
  });
});
