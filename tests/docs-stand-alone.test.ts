// @tier unit
// Comments and docs stand alone (CONTRIBUTING.md#the-rules): a comment says the fact itself and
// cites only files of this repository, never an issue number or a document a reader does not have;
// each decision is its own file under docs/decisions/; and every link into docs/decisions/, and
// every link between the Markdown docs, names a file and a heading that exist.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

// Built from pieces, so that this file does not match what it looks for.
const ISSUE_NUMBER = new RegExp(['\\b', 'Issue', ' [0-9]'].join(''));
const STYLE_PATTERN = new RegExp(['style', 'pattern'].join(' '), 'i');
const OLD_DECISIONS_FILE = new RegExp(['\\b', 'decisions', '\\.md\\b'].join(''));
/** `docs/decisions/<file>.md#<anchor>`, with any prefix (`docs/`, `../`, none) and an optional anchor. */
const DECISION_LINK = new RegExp(['decisions', '\\/([\\w.-]+)\\.md(?:#([\\w-]+))?'].join(''), 'g');

const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', 'artifacts']);
const SKIPPED_PATHS = new Set(['server/client/generated']);
const TEXT_EXTENSIONS = new Set(['.ts', '.tsx', '.mts', '.cts', '.mjs', '.cjs', '.js', '.md', '.json', '.yml', '.yaml', '.html', '.css', '.py', '.php', '.sh']);

/** Repository-relative paths of the files under `dir` whose extension is one of `extensions`. */
function filesUnder(dir: string, extensions: Set<string>, skipped = SKIPPED_PATHS): string[] {
  const out: string[] = [];
  const walk = (relative: string) => {
    const full = path.join(root, relative);
    if (!fs.existsSync(full)) return;
    for (const entry of fs.readdirSync(full, { withFileTypes: true })) {
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name) && !skipped.has(child)) walk(child);
      } else if (extensions.has(path.extname(entry.name))) out.push(child);
    }
  };
  walk(dir);
  return out;
}

const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const lineAt = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

/** The source files whose comments are held to the rule: the server, the portal, the shell and the tests. */
const CODE = ['server', 'ui/src', 'electron', 'tests'].flatMap((dir) => filesUnder(dir, new Set(['.ts', '.tsx', '.mjs'])));
/** Everything a reader opens: the code above, the build scripts and configuration, and the docs. */
const CODE_AND_DOCS = [
  ...['server', 'ui', 'electron', 'tests', 'build', 'docs', '.github'].flatMap((dir) => filesUnder(dir, TEXT_EXTENSIONS, new Set())),
  ...['README.md', 'CONTRIBUTING.md', 'package.json', 'vitest.config.ts', 'eslint.config.js', '.ci/run'].filter((file) => fs.existsSync(path.join(root, file))),
];
const MARKDOWN = [...filesUnder('docs', new Set(['.md'])), 'README.md', 'CONTRIBUTING.md'];

/** Every comment of a TypeScript or JavaScript file, with the line it starts on. */
function commentsOf(file: string, text: string): Array<{ line: number; text: string }> {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const starts = new Set<number>();
  const comments: Array<{ line: number; text: string }> = [];
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (starts.has(range.pos)) continue;
      starts.add(range.pos);
      comments.push({ line: lineAt(text, range.pos), text: text.slice(range.pos, range.end) });
    }
  };
  // Every comment is in the trivia around some token (the end of the file included): on the lines
  // before it, or after it on its own line. JSX text has no trivia: a `//` inside it is text.
  const visit = (node: ts.Node) => {
    if (node.kind !== ts.SyntaxKind.JsxText) {
      collect(ts.getLeadingCommentRanges(text, node.pos));
      collect(ts.getTrailingCommentRanges(text, node.end));
    }
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return comments.sort((a, b) => a.line - b.line);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slugOf(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The lines of a Markdown file outside fenced code blocks, each with its number. */
function proseLines(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fence: string | null = null;
  text.split('\n').forEach((line, index) => {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (marker) {
      if (!fence) fence = marker;
      else if (line.trim().startsWith(fence)) fence = null;
      return;
    }
    if (!fence) out.push({ line: index + 1, text: line });
  });
  return out;
}

const anchorCache = new Map<string, Set<string>>();
/**
 * The anchors a Markdown file offers: one per heading (a repeated heading gets `-1`, `-2`, …), and
 * each `<a id="…">` (or `name`) written in the text.
 */
function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file);
  if (cached) return cached;
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  for (const { text } of proseLines(read(file))) {
    for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const slug = slugOf(heading);
    const seen = counts.get(slug) ?? 0;
    counts.set(slug, seen + 1);
    anchors.add(seen ? `${slug}-${seen}` : slug);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

/** Why a link to `file` (repository-relative) and `anchor` does not resolve, or null when it does. */
function brokenLink(file: string, anchor: string | undefined): string | null {
  if (!fs.existsSync(path.join(root, file))) return `${file} does not exist`;
  if (anchor !== undefined && !anchorsOf(file).has(anchor)) return `${file} has no heading #${anchor}`;
  return null;
}

describe('comments and docs that stand alone', () => {
  it('has no comment that cites an issue by number or a numbered rule of another document', () => {
    const found: string[] = [];
    for (const file of CODE) {
      const text = read(file);
      if (!ISSUE_NUMBER.test(text) && !STYLE_PATTERN.test(text)) continue;
      for (const comment of commentsOf(file, text)) {
        comment.text.split('\n').forEach((line, index) => {
          if (ISSUE_NUMBER.test(line) || STYLE_PATTERN.test(line)) found.push(`${file}:${comment.line + index}: ${line.trim()}`);
        });
      }
    }
    expect(found).toEqual([]);
  });

  it('has no reference left to the old single decisions file', () => {
    const found = CODE_AND_DOCS.flatMap((file) => {
      const text = read(file);
      return [...text.matchAll(new RegExp(OLD_DECISIONS_FILE, 'g'))].map((match) => `${file}:${lineAt(text, match.index)}`);
    });
    expect(found).toEqual([]);
  });

  it('names an existing file and heading in every link into docs/decisions/', () => {
    expect(fs.existsSync(path.join(root, 'docs/decisions/README.md'))).toBe(true);
    const broken: string[] = [];
    for (const file of CODE_AND_DOCS) {
      const text = read(file);
      for (const match of text.matchAll(DECISION_LINK)) {
        const problem = brokenLink(`docs/decisions/${match[1]}.md`, match[2]);
        if (problem) broken.push(`${file}:${lineAt(text, match.index)}: ${match[0]}: ${problem}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('lists every decision file in docs/decisions/README.md', () => {
    const index = read('docs/decisions/README.md');
    const unlisted = filesUnder('docs/decisions', new Set(['.md']))
      .map((file) => path.posix.basename(file))
      .filter((name) => name !== 'README.md' && !index.includes(`](${name})`));
    expect(unlisted).toEqual([]);
  });

  it('resolves every link between the Markdown docs, anchors included', () => {
    const broken: string[] = [];
    for (const file of MARKDOWN) {
      for (const { line, text } of proseLines(read(file))) {
        // Code spans are not links.
        const prose = text.replace(/`[^`]*`/g, (span) => ' '.repeat(span.length));
        for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = match[1]!;
          if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
          const [linked = '', anchor] = target.split('#');
          const resolved = linked ? path.posix.normalize(path.posix.join(path.posix.dirname(file), linked)) : file;
          const problem = resolved.endsWith('.md')
            ? brokenLink(resolved, anchor)
            : fs.existsSync(path.join(root, resolved))
              ? null
              : `${resolved} does not exist`;
          if (problem) broken.push(`${file}:${line}: ${target}: ${problem}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
