import Papa from 'papaparse';

/** A file's cells, trimmed, without empty lines; what the parser decided about its separator. */
export interface ParsedTable {
  rows: string[][];
  delimiter: string;
}

/**
 * A CSV (or a spreadsheet saved as CSV) as rows of cells, by papaparse: quoted cells with
 * separators, quotes and line breaks inside, a UTF-8 byte-order mark, and `,`, `;` or tab as
 * the separator (guessed from the text: spreadsheets in many languages save with `;`).
 */
export function parseTable(text: string): ParsedTable {
  const result = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), { skipEmptyLines: 'greedy', delimitersToGuess: [',', ';', '\t'] });
  return { rows: result.data.map((row) => row.map((cell) => cell.trim())), delimiter: result.meta.delimiter };
}

/** Rows back to CSV text (the result file), quoted where needed. */
export function toCsv(rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  return Papa.unparse(rows.map((row) => [...row]));
}

/** One field an import fills, with the column titles that name it. */
export interface ImportField {
  key: string;
  label: string;
  required?: boolean;
  /** What the mapping step says under the field, when "Required" or "Optional" is not enough. */
  description?: string;
  /** Column titles taken to mean this field, compared without case, accents, spaces or punctuation. */
  titles: string[];
  /** Mapped from a header's title only: a file without a header gives its columns to the other fields, in order. */
  titleOnly?: boolean;
}

/** A title without case, accents, spaces or punctuation: "Prénom" and "prenom" are one title. */
export const simplified = (title: string) =>
  title
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');

/** The field a column title names, if any. */
export function fieldOfTitle(title: string, fields: readonly ImportField[]): ImportField | undefined {
  const wanted = simplified(title);
  return wanted ? fields.find((field) => field.titles.some((candidate) => simplified(candidate) === wanted)) : undefined;
}

/** A first row is a header when one of its cells names a field and none looks like data of an e-mail field. */
export function looksLikeHeader(row: readonly string[] | undefined, fields: readonly ImportField[]): boolean {
  if (!row) return false;
  return row.some((cell) => fieldOfTitle(cell, fields) !== undefined) && !row.some((cell) => cell.includes('@'));
}

/** Field key → column index (or null: not imported). */
export type ColumnMapping = Record<string, number | null>;

/**
 * The columns each field comes from: by the header's titles when there is one, otherwise the
 * fields that are not title-only in order, one column each.
 */
export function guessMapping(fields: readonly ImportField[], header: readonly string[] | null, columns: number): ColumnMapping {
  const mapping: ColumnMapping = {};
  let position = 0;
  for (const field of fields) {
    if (header) {
      const index = header.findIndex((title) => fieldOfTitle(title, fields)?.key === field.key);
      mapping[field.key] = index >= 0 ? index : null;
    } else if (field.titleOnly) {
      mapping[field.key] = null;
    } else {
      mapping[field.key] = position < columns ? position : null;
      position += 1;
    }
  }
  return mapping;
}

/** One cell as read-excel-file gives it: text, a number, a boolean, a date or nothing. */
export type SheetCell = string | number | boolean | Date | null;

/** Excel's day numbers carry no zone; read-excel-file gives them as UTC midnights, so read them back in UTC. */
function dateText(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * A sheet's cells as the text a person sees in them, so an .xlsx goes through the same header
 * detection and checks as a CSV: 2024001 (not "2024001.0"), dates as YYYY-MM-DD, TRUE/FALSE.
 * Rows left empty are dropped, as the CSV reader drops empty lines.
 */
export function sheetRows(data: ReadonlyArray<ReadonlyArray<SheetCell>>): string[][] {
  return data
    .map((row) =>
      row.map((cell) => {
        if (cell === null) return '';
        if (cell instanceof Date) return dateText(cell);
        if (typeof cell === 'boolean') return cell ? 'TRUE' : 'FALSE';
        return String(cell).trim();
      }),
    )
    .filter((row) => row.some((cell) => cell !== ''));
}
