import { fieldOfTitle, type ColumnMapping, type ImportField } from './table';

/**
 * People's names as school files give them (docs/install.md#importing-people-from-a-spreadsheet):
 * one name column, often "Family, Given", or a given-name and a family-name column. The appliance
 * stores one full name, "Given Family", which its mail and its login e-mails are made from.
 */

export const GIVEN = 'given_name';
export const FAMILY = 'family_name';

/** The given-name field, for the kinds that import people. */
export const givenNameField: ImportField = {
  key: GIVEN,
  label: 'Given name',
  description: 'Optional; with Family name',
  titleOnly: true,
  titles: ['first name', 'firstname', 'given name', 'given names', 'forename', 'forenames', 'first', 'prénom', 'prénoms', 'nombre', 'nombres', 'vorname'],
};

/** The family-name field, for the kinds that import people. */
export const familyNameField: ImportField = {
  key: FAMILY,
  label: 'Family name',
  description: 'Optional; with Given name',
  titleOnly: true,
  titles: ['last name', 'lastname', 'surname', 'family name', 'last', 'nom', 'nom de famille', 'apellido', 'apellidos', 'nachname'],
};

/**
 * A name as it is stored: "Family, Given" (exactly one comma, text on both sides) becomes "Given
 * Family", as a SIS export writes it and a letter must not ("Ashworth-Smythe,'s guardian"). Any
 * other name is kept as it is.
 */
export function storedName(name: string): string {
  const parts = name.split(',');
  if (parts.length !== 2) return name;
  const [family, given] = parts.map((part) => part.trim());
  return family && given ? `${given} ${family}` : name;
}

/** "Given Family" from the two parts; either may be empty. */
export function joinName(given: string, family: string): string {
  return [given.trim(), family.trim()].filter(Boolean).join(' ');
}

const isMapped = (mapping: ColumnMapping, key: string) => mapping[key] !== null && mapping[key] !== undefined;

/** Whether names come from the given and family columns rather than from one name column. */
export const usesNameParts = (mapping: ColumnMapping) => isMapped(mapping, GIVEN) || isMapped(mapping, FAMILY);

/** A row's name as it will be stored, from the given and family names when either is mapped, else from the name column. */
export function nameOfRow(values: Readonly<Record<string, string>>, mapping: ColumnMapping): string {
  return usesNameParts(mapping) ? joinName(values[GIVEN] ?? '', values[FAMILY] ?? '') : storedName(values.full_name ?? '');
}

/**
 * A guessed mapping with the name parts preferred: when a file has both a name column and a given
 * or family column, the parts say unambiguously which name is the family name.
 */
export function preferNameParts(mapping: ColumnMapping): ColumnMapping {
  return usesNameParts(mapping) && isMapped(mapping, 'full_name') ? { ...mapping, full_name: null } : mapping;
}

/** The mapping's trouble with names that no import can go on with, in words, or null. */
export function nameMappingProblem(mapping: ColumnMapping): string | null {
  if (usesNameParts(mapping) && isMapped(mapping, 'full_name')) return 'Choose either Name or the given and family names, not both.';
  if (!usesNameParts(mapping) && !isMapped(mapping, 'full_name')) return 'Choose the column of: Name (or Given name and Family name).';
  return null;
}

/** A title in words without accents or punctuation: "Prénom(s) usuel" → "prenom s usuel". */
const words = (title: string) =>
  ` ${title
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')} `;

/**
 * Titles that look like a name part though they are not among the field's titles ("Legal first
 * name", "Prénom usuel", "Surname(s)"). Looser than the mapping's titles: it only raises a warning.
 * "nom" is a family name only as a word of its own, not inside "prenom" or "nombre".
 */
const LOOKS_LIKE: Record<typeof GIVEN | typeof FAMILY, RegExp> = {
  [GIVEN]: / (first|given|fore|christian|prenom|nombre|vorname)/,
  [FAMILY]: / (last|surname|family|apellido|nachname)| nom /,
};

/**
 * When only one of the given and family names is mapped and an unmapped column's title looks like
 * the other, what the preview must say before the import, in words; otherwise null. The names
 * would be half names ("Dupont" for "Marie Dupont"), so this is settled or accepted, never passed.
 */
export function namePartWarning(fields: readonly ImportField[], header: readonly string[] | null, mapping: ColumnMapping): string | null {
  if (!header || isMapped(mapping, GIVEN) === isMapped(mapping, FAMILY)) return null;
  const [missing, chosen] = isMapped(mapping, GIVEN) ? ([FAMILY, GIVEN] as const) : ([GIVEN, FAMILY] as const);
  const taken = new Set(Object.values(mapping));
  const column = header.findIndex((title, index) => {
    if (taken.has(index)) return false;
    const named = fieldOfTitle(title, fields);
    return named ? named.key === missing : LOOKS_LIKE[missing].test(words(title));
  });
  if (column < 0) return null;
  const [chosenWords, missingLabel] = chosen === GIVEN ? ['given name', 'Family name'] : ['family name', 'Given name'];
  return (
    `Only the ${chosenWords} is chosen, but column ${column + 1} ("${header[column]}") looks like the ${missingLabel.toLowerCase()}. ` +
    `Choose it as ${missingLabel}, or each name will be the ${chosenWords} alone.`
  );
}
