import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, indentOnInput, indentUnit, syntaxHighlighting, type LanguageSupport } from '@codemirror/language';
import { Compartment, EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useRef } from 'react';

interface Props {
  /** The id of the visible label that names the editor. */
  labelledBy: string;
  /** The id of the text that says how Tab works here. */
  describedBy: string;
  /** The exam's toolchain (`python-3.12`, `node-22`, `java-21`…): picks the syntax colouring. */
  toolchain: string;
  initial: string;
  disabled: boolean;
  onChange: (text: string) => void;
}

/** The language of a toolchain, loaded only when an exam uses it; plain text for any other. */
async function languageOf(toolchain: string): Promise<LanguageSupport | null> {
  const name = toolchain.toLowerCase();
  if (name.startsWith('python')) return (await import('@codemirror/lang-python')).python();
  if (/^(node|javascript|typescript|deno|bun)/.test(name))
    return (await import('@codemirror/lang-javascript')).javascript({ typescript: name.includes('typescript') });
  if (/^(java|jdk|openjdk)/.test(name)) return (await import('@codemirror/lang-java')).java();
  if (/^(c|cpp|c\+\+|gcc|g\+\+|clang)\b/.test(name)) return (await import('@codemirror/lang-cpp')).cpp();
  return null;
}

/**
 * The coding exam's editor (CodeMirror 6): monospaced, line numbers, Tab indents (Esc, then Tab,
 * leaves the editor, so the keyboard is never trapped), undo, bracket matching, the toolchain's
 * colouring. The text is the attempt's answer, kept as a draft by the page on every change.
 */
export function CodeEditor({ labelledBy, describedBy, toolchain, initial, disabled, onChange }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  const editable = useRef(new Compartment());
  const language = useRef(new Compartment());

  useEffect(() => {
    let cancelled = false;
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: initial,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          history(),
          drawSelection(),
          indentOnInput(),
          indentUnit.of('    '),
          bracketMatching(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
          EditorView.contentAttributes.of({ 'aria-labelledby': labelledBy, 'aria-describedby': describedBy, spellcheck: 'false', autocapitalize: 'off' }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current(update.state.doc.toString());
          }),
          editable.current.of(EditorView.editable.of(!disabled)),
          language.current.of([]),
        ],
      }),
    });
    view.current = editor;
    void languageOf(toolchain).then((support) => {
      if (!cancelled && support) editor.dispatch({ effects: language.current.reconfigure(support) });
    });
    return () => {
      cancelled = true;
      editor.destroy();
      view.current = null;
    };
    // Made once per attempt: from then on the text lives in the editor (`initial` and `disabled`
    // are read when it is made; a change of `disabled` is the effect below).
  }, [toolchain, labelledBy, describedBy]);

  useEffect(() => {
    view.current?.dispatch({ effects: editable.current.reconfigure(EditorView.editable.of(!disabled)) });
  }, [disabled]);

  return <div ref={host} className="learner-code-editor" />;
}
