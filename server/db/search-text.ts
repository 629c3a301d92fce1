/**
 * What `q` on GET /v1/students and /v1/faculty searches (docs/api.md#finding-people):
 * a person's name, their student or faculty id and the part of their login e-mail before the `@`,
 * folded so that case and accents do not matter ("SØR" and "sor" both find "Sørensen"). The folded
 * text is stored on the person (`people.search_text`) and indexed by trigrams on both databases
 * (migration 20261206000000-people-search); a query is folded the same way and matched as parts
 * of it. Changing the fold changes what is stored: it needs a migration that recomputes the column.
 */

/** Letters that Unicode does not decompose into a base letter and a mark, as people type them without the keyboard. */
const SPELLED_OUT: Record<string, string> = { ø: 'o', æ: 'ae', œ: 'oe', ß: 'ss', đ: 'd', ð: 'd', þ: 'th', ł: 'l', ı: 'i', ħ: 'h', ŧ: 't', ŀ: 'l' };

/**
 * Lower case, without accents, every run of what is not a letter or a digit one space: "Ashworth-Smythe, Liam"
 * is "ashworth smythe liam", "S-1042" is "s 1042".
 */
export function foldForSearch(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[øæœßđðþłıħŧŀ]/g, (letter) => SPELLED_OUT[letter]!)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export interface Searchable {
  full_name: string;
  external_id: string | null;
  login_email: string;
}

/**
 * The stored text of a person: name, id and login e-mail before its `@`, folded, with a space at
 * each end so that a short term can be matched at the start of a word (" wu" in " bo wu ").
 * The e-mail's domain is left out: every person of an institution shares it, so it would make
 * "high" or "camp" match everyone.
 */
export function searchTextOf(person: Searchable): string {
  const local = person.login_email.slice(0, Math.max(0, person.login_email.lastIndexOf('@')));
  // Each word once: a query matches word by word, and the login e-mail mostly repeats the name.
  const words = new Set([person.full_name, person.external_id ?? '', local].flatMap((part) => foldForSearch(part).split(' ')).filter(Boolean));
  return ` ${[...words].join(' ')} `;
}

/** The longest `q` accepted, in characters as sent. */
export const MAX_QUERY_LENGTH = 100;

export interface SearchPatterns {
  /** The LIKE patterns on `search_text`, every one of which must hold. */
  like: string[];
  /**
   * What the trigram index can look up: the patterns' text between their wildcards when it is
   * 3 characters or more (a trigram); at least one is needed for a query to be answered.
   */
  indexed: string[];
}

/**
 * How a query is matched: each word of 3 letters or more anywhere ("sorens" in "sorensen"), a
 * shorter one at the start of a word ("wu", "j"). The query's part after an `@` is the
 * institution's e-mail domain (see `searchTextOf`) and is dropped.
 */
export function searchPatterns(query: string): SearchPatterns {
  const at = query.indexOf('@');
  const words = foldForSearch(at >= 0 ? query.slice(0, at) : query)
    .split(' ')
    .filter(Boolean);
  const cores = [...new Set(words.map((word) => (word.length >= 3 ? word : ` ${word}`)))];
  return { like: cores.map((core) => `%${core}%`), indexed: cores.filter((core) => core.length >= 3) };
}
