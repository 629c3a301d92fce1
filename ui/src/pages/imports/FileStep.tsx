import { Alert, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { useRef, useState, type DragEvent } from 'react';
import type { ImportKind } from './importKind';
import { FAMILY, GIVEN } from './names';
import { ACCEPTED_FILES } from './readFile';

/** The columns an import takes, for the first step: "Name (or given and family names), Student ID (optional), …". */
function columnsInWords(kind: ImportKind): string {
  return kind.fields
    .filter((field) => field.key !== GIVEN && field.key !== FAMILY)
    .map((field) => {
      if (field.key === 'full_name') return 'Name (or given and family names)';
      return `${field.label}${field.required ? '' : ' (optional)'}`;
    })
    .join(', ');
}

/** The first step: drop or choose the file, with the columns the import takes. */
export function FileStep({
  kind,
  reading,
  fileError,
  onFile,
}: {
  kind: ImportKind;
  reading: boolean;
  fileError: string | null;
  onFile(file: File | undefined): void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);

  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    onFile(event.dataTransfer.files[0]);
  };

  return (
    <Stack>
      <Paper
        withBorder
        p="xl"
        radius="md"
        style={{ borderStyle: 'dashed', background: dragging ? 'var(--mantine-color-blue-light)' : undefined, textAlign: 'center' }}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
      >
        <Stack align="center" gap="xs">
          <Text>Drop a CSV or Excel (.xlsx) file here</Text>
          <Text size="sm" c="dimmed">
            CSV comma- or semicolon-separated, as spreadsheets save it, or an Excel workbook's first sheet; a header line is recognised.
          </Text>
          <Group>
            <Button onClick={() => input.current?.click()} loading={reading}>
              Choose a file
            </Button>
          </Group>
          <input
            ref={input}
            type="file"
            accept={ACCEPTED_FILES}
            aria-label="CSV or Excel file"
            hidden
            onChange={(event) => {
              onFile(event.currentTarget.files?.[0]);
              event.currentTarget.value = '';
            }}
          />
        </Stack>
      </Paper>
      {reading ? (
        <Text size="sm" aria-live="polite">
          Reading the file and the people already here…
        </Text>
      ) : null}
      {fileError ? (
        <Alert color="red" role="alert">
          {fileError}
        </Alert>
      ) : null}
      <Text size="sm" c="dimmed">
        Columns: {columnsInWords(kind)}. Nothing is written until you have seen the preview.
      </Text>
    </Stack>
  );
}
