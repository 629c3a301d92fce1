import transliterate from '@sindresorhus/transliterate';

/**
 * Titles a roster may put before a name; they are not part of the address a person types
 * (`Mme Hélène Rousseau` logs in as `helene.rousseau@…`).
 */
const HONORIFICS = new Set(['mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'rev', 'sir', 'dame', 'mme', 'mlle', 'herr', 'frau', 'sr', 'sra', 'srta']);

/**
 * The local part of a generated login e-mail: the name's words as a person would type them,
 * joined by dots (`Ingrid Sørensen` → `ingrid.sorensen`, `Łukasz Zhang` → `lukasz.zhang`).
 * Letters are transliterated (ø → o, ł → l, ß → ss) rather than dropped, a leading title is left
 * out, and a name with nothing typeable left gives the role (`student`, `faculty`).
 */
export function loginLocalPart(fullName: string, fallback: string): string {
  const words = transliterate(fullName)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  while (words.length > 1 && HONORIFICS.has(words[0]!)) words.shift();
  const local = words.join('.').slice(0, 40).replace(/\.+$/, '');
  return local || fallback;
}
