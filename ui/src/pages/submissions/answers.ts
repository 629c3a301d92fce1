/**
 * How a submission's answers read as text. The apps send answers as any JSON (the submission's
 * `answers`), so the page reads their shape: keys are the questions, strings the answers, a key
 * that is a file name (`solution.py`) holds code. Pure functions, tested on their own.
 */

/** A question's label from its key: `q3` → "Question 3", `word_count` → "Word count"; file names as they are. */
export function answerLabel(key: string): string {
  const question = /^q(?:uestion)?[ _-]?(\d+)$/i.exec(key);
  if (question) return `Question ${question[1]}`;
  if (looksLikeFileName(key) || /^\d+$/.test(key)) return key;
  const words = key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1).toLowerCase() : key;
}

/** `solution.py`, `src/main.rs`: a name with an extension, as code files in answers are keyed. */
export function looksLikeFileName(key: string): boolean {
  return /^[\w./-]*\w\.[A-Za-z0-9]{1,10}$/.test(key) && !/^\d+(\.\d+)?$/.test(key);
}

/** Keys whose answer is a program rather than prose. */
const CODE_KEYS = new Set(['code', 'source', 'source_code', 'program', 'solution', 'script']);

/** Whether an answer under `key` is code, shown in a monospaced block: a file's contents, or a key that says so. */
export function isCodeAnswer(key: string | null): boolean {
  return key !== null && (looksLikeFileName(key) || CODE_KEYS.has(key.toLowerCase()));
}

/** Whether a value reads on one line beside its label: numbers, yes/no, short single-line strings. */
export function isShortAnswer(value: unknown): boolean {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return true;
  return typeof value === 'string' && value.length <= 80 && !value.includes('\n');
}
