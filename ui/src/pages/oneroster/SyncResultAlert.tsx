import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import type { SyncResult } from './oneroster';
import { countsLine, OUTCOME_COLORS, OUTCOME_WORDS } from './runWords';

/** What a sync or an import did (or, dry run or held back, would do); a held-back one offers to apply it past the guard. */
export function SyncResultAlert({ result, applyLabel, onApply }: { result: SyncResult; applyLabel: string; onApply(): void }) {
  return (
    <Alert
      role="status"
      color={OUTCOME_COLORS[result.outcome]}
      title={
        result.outcome === 'dry_run'
          ? 'Dry run: nothing was changed'
          : result.outcome === 'held_back'
            ? 'Held back: nothing was changed'
            : OUTCOME_WORDS[result.outcome]
      }
    >
      <Stack gap="xs">
        {result.outcome !== 'failed' ? <Text size="sm">{countsLine(result)}</Text> : null}
        {result.reason ? <Text size="sm">{result.reason}</Text> : null}
        {result.outcome === 'held_back' ? (
          <Group>
            <Button color="orange" onClick={onApply}>
              {applyLabel}
            </Button>
          </Group>
        ) : null}
      </Stack>
    </Alert>
  );
}
