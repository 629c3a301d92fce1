import { Anchor, Box, Code, List, Stack, Text } from '@mantine/core';
import type { CSSProperties } from 'react';
import { answerLabel, isCodeAnswer, isShortAnswer } from './answers';
import type { FileLink } from './submissions';

/** Long words and URLs break inside the page's width instead of pushing it sideways (a phone's 390 px). */
const WRAP: CSSProperties = { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' };
/** Programs wrap at any character, so an indented line keeps its indentation on the line it starts. */
const CODE_WRAP: CSSProperties = { whiteSpace: 'pre-wrap', wordBreak: 'break-all' };
/** Deeper than this, a value is shown as indented JSON text: no app nests its answers so far. */
const MAX_DEPTH = 6;

/** One answer, whatever its JSON shape: text, a program, a file, a list, or labelled parts. */
function AnswerValue({ name, value, files, depth }: { name: string | null; value: unknown; files: ReadonlyMap<string, FileLink>; depth: number }) {
  if (value === null || value === undefined || value === '') {
    return (
      <Text span size="sm" c="dimmed">
        no answer
      </Text>
    );
  }
  if (typeof value === 'boolean')
    return (
      <Text span size="sm">
        {value ? 'yes' : 'no'}
      </Text>
    );
  if (typeof value === 'number')
    return (
      <Text span size="sm">
        {value}
      </Text>
    );
  if (typeof value === 'string') {
    const file = files.get(value);
    if (file) {
      return (
        <Anchor href={file.url} download={file.name} size="sm">
          {file.name}
        </Anchor>
      );
    }
    if (isShortAnswer(value) && !isCodeAnswer(name)) {
      // Beside its label, inside the label's line.
      return (
        <Text span size="sm" style={WRAP}>
          {value}
        </Text>
      );
    }
    if (isCodeAnswer(name)) {
      return (
        <Code block style={CODE_WRAP} aria-label={name ? `${answerLabel(name)} (code)` : 'Code'}>
          {value}
        </Code>
      );
    }
    return (
      <Text size="sm" style={WRAP}>
        {value}
      </Text>
    );
  }
  if (depth >= MAX_DEPTH) {
    return (
      <Code block style={CODE_WRAP}>
        {JSON.stringify(value, null, 2)}
      </Code>
    );
  }
  if (Array.isArray(value)) {
    return (
      <List type="ordered" size="sm" spacing={4}>
        {value.map((item, index) => (
          // Answers never reorder: the index is the item's identity.
          <List.Item key={index}>
            <AnswerValue name={name} value={item} files={files} depth={depth + 1} />
          </List.Item>
        ))}
      </List>
    );
  }
  return <AnswerParts parts={Object.entries(value as Record<string, unknown>)} files={files} depth={depth + 1} />;
}

/** Labelled answers: a short one beside its label, a longer one (or a program) below it. */
function AnswerParts({ parts, files, depth }: { parts: Array<[string, unknown]>; files: ReadonlyMap<string, FileLink>; depth: number }) {
  return (
    <Stack gap="sm" pl={depth > 1 ? 'sm' : 0} style={depth > 1 ? { borderLeft: '2px solid var(--mantine-color-gray-3)' } : undefined}>
      {parts.map(([key, value]) =>
        isShortAnswer(value) && !isCodeAnswer(key) ? (
          <Text key={key} size="sm" style={WRAP}>
            <Text span size="sm" fw={600}>
              {answerLabel(key)}:
            </Text>{' '}
            <AnswerValue name={key} value={value} files={files} depth={depth} />
          </Text>
        ) : (
          <Box key={key} miw={0}>
            <Text size="sm" fw={600} mb={4}>
              {answerLabel(key)}
            </Text>
            <AnswerValue name={key} value={value} files={files} depth={depth} />
          </Box>
        ),
      )}
    </Stack>
  );
}

/**
 * A submission's answers as text (docs/decisions/names-not-ids.md): each question by its label,
 * prose wrapped with its line breaks kept, programs in a monospaced block that wraps, files (by
 * their refs) as links; nothing is cut off, however long.
 */
export function Answers({ answers, attachments }: { answers: unknown; attachments: readonly FileLink[] }) {
  const files = new Map(attachments.map((file) => [file.ref, file]));
  if (answers === null || answers === undefined) {
    return (
      <Text size="sm" c="dimmed">
        No answers were sent with this submission.
      </Text>
    );
  }
  const parts: Array<[string, unknown]> =
    typeof answers === 'object' && !Array.isArray(answers) ? Object.entries(answers as Record<string, unknown>) : [['Answer', answers]];
  return (
    <Box aria-label="Answers" role="region" miw={0}>
      <AnswerParts parts={parts} files={files} depth={1} />
    </Box>
  );
}
