import { readSheet } from 'read-excel-file/browser';
import { parseTable, sheetRows, type ParsedTable, type SheetCell } from './table';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const extension = (name: string) => /\.([^.]+)$/.exec(name)?.[1]?.toLowerCase() ?? '';

/** What the file input offers: CSV and text as before, and Excel workbooks (.xlsx). */
export const ACCEPTED_FILES = `.csv,.txt,.tsv,text/csv,text/plain,.xlsx,${XLSX_TYPE}`;

/**
 * A chosen or dropped file as rows of text: an .xlsx (by extension or type) by read-excel-file,
 * its first sheet; CSV and text by papaparse. Anything else is refused with an Error saying what
 * to do, as the wizard shows the message as it is.
 */
export async function readImportFile(file: File): Promise<ParsedTable> {
  const ext = extension(file.name);
  if (ext === 'xlsx' || file.type === XLSX_TYPE) {
    let data: SheetCell[][];
    try {
      // The first sheet: a workbook's other sheets are usually notes or lookups, not people.
      data = (await readSheet(file, 1)) as unknown as SheetCell[][];
    } catch {
      throw new Error(`${file.name} could not be read as an Excel workbook. Open it in your spreadsheet and save it again as .xlsx or .csv.`);
    }
    return { rows: sheetRows(data), delimiter: '' };
  }
  // By extension only: Windows with Excel installed labels .csv files application/vnd.ms-excel too.
  if (ext === 'xls') {
    throw new Error(`${file.name} is in the old Excel format (.xls), which cannot be read here. Save it as .xlsx or .csv.`);
  }
  if (['csv', 'txt', 'tsv'].includes(ext) || file.type.startsWith('text/')) return parseTable(await file.text());
  throw new Error(`${file.name} is not a CSV or Excel file. Save it as .xlsx or .csv.`);
}
