import transliterate from '@sindresorhus/transliterate';
import { HONORIFICS, readingName } from '../../mail/names.js';

/**
 * The local part of a generated login e-mail: the name's words as a person would type them,
 * joined by dots (`Ingrid Sørensen` → `ingrid.sorensen`, `Łukasz Zhang` → `lukasz.zhang`).
 * Letters are transliterated (ø → o, ł → l, ß → ss) rather than dropped, a leading title is left
 * out, "Family, Given" is read in order, and a name with nothing typeable left gives the role (`student`, `faculty`).
 */
export function loginLocalPart(fullName: string, fallback: string): string {
  const words = transliterate(readingName(fullName))
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  while (words.length > 1 && HONORIFICS.has(words[0]!)) words.shift();
  const local = words.join('.').slice(0, 40).replace(/\.+$/, '');
  return local || fallback;
}
