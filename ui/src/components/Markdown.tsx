import MarkdownIt from 'markdown-it';
import { useMemo } from 'react';

/*
 * An exam's `description` is Markdown (the teacher's instructions). Both the learner page and the
 * portal render it here. This file imports no Mantine, so the learner page can use it without the
 * portal's code.
 */

/**
 * Raw HTML off: a `<script>` in the instructions is shown as text, never run. markdown-it also
 * refuses `javascript:` and similar link targets.
 */
function markdownRenderer(headingOffset: number) {
  const md = new MarkdownIt({ html: false, linkify: true });
  // The text sits under the page's own headings: its `#` must not outrank them.
  const shift = (tag: string) => `h${Math.min(6, Number(tag.slice(1)) + headingOffset)}`;
  md.renderer.rules.heading_open = (tokens, idx, options, _env, self) => {
    tokens[idx]!.tag = shift(tokens[idx]!.tag);
    return self.renderToken(tokens, idx, options);
  };
  md.renderer.rules.heading_close = (tokens, idx, options, _env, self) => {
    tokens[idx]!.tag = shift(tokens[idx]!.tag);
    return self.renderToken(tokens, idx, options);
  };
  return md;
}

/** Markdown as HTML. `headingOffset`: levels added to its headings (2 under an `h2`). */
export function Markdown({ markdown, headingOffset, className }: { markdown: string; headingOffset: number; className?: string }) {
  const html = useMemo(() => markdownRenderer(headingOffset).render(markdown), [markdown, headingOffset]);
  if (!markdown.trim()) return null;
  // Safe by construction: markdown-it escapes every character of raw HTML when `html` is false.
  return <div className={className} dangerouslySetInnerHTML={{ __html: html }} />;
}
