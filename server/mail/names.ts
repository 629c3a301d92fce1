/**
 * How the appliance writes a person's name to them: mail says "Hello Tom", not "Hello
 * Ashworth-Smythe,", and login e-mails leave titles out. A roster may give `full_name` as
 * "Family, Given" or with a title first ("Mme Hélène Rousseau"); both are read here.
 */

/** Titles a roster may put before a name; they are not the name a person is addressed by. */
export const HONORIFICS: ReadonlySet<string> = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'mx',
  'dr',
  'prof',
  'rev',
  'sir',
  'dame',
  'mme',
  'mlle',
  'herr',
  'frau',
  'sr',
  'sra',
  'srta',
]);

const isTitle = (word: string) => HONORIFICS.has(word.toLowerCase().replace(/\.$/, ''));

/** The name in reading order, without a leading title: "Ashworth-Smythe, Tom" → "Tom Ashworth-Smythe". */
export function readingName(fullName: string): string {
  const trimmed = fullName.trim().replace(/\s+/g, ' ');
  const comma = trimmed.indexOf(',');
  const given = comma > 0 ? trimmed.slice(comma + 1).trim() : '';
  const ordered = given ? `${given} ${trimmed.slice(0, comma).trim()}` : trimmed;
  const words = ordered.split(' ');
  while (words.length > 1 && isTitle(words[0]!)) words.shift();
  return words.join(' ') || trimmed;
}

/** The name a person is greeted by: the first word of the reading name ("Tom", "Hélène"). */
export function givenName(fullName: string): string {
  return readingName(fullName).split(' ')[0] ?? fullName.trim();
}
