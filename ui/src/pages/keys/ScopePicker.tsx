import { Button, Checkbox, Fieldset, Group, SimpleGrid, Skeleton, Text } from '@mantine/core';
import { QueryError } from '../../components';
import { groupByArea, useScopes } from '../scopes/scopes';

/** Scopes grouped by area, read and write side by side, each with what it grants. */
export function ScopePicker({ value, onChange }: { value: string[]; onChange(scopes: string[]): void }) {
  const scopes = useScopes();
  if (scopes.error) return <QueryError error={scopes.error} />;
  if (!scopes.data) return <Skeleton height={200} />;
  const toggle = (scope: string, checked: boolean) => onChange(checked ? [...value, scope] : value.filter((entry) => entry !== scope));
  const all = scopes.data.map((entry) => entry.scope);
  const reads = all.filter((scope) => scope.endsWith(':read'));
  return (
    <Fieldset legend={`Scopes (${value.length} selected)`} variant="unstyled">
      <Group gap="xs" mb="sm">
        <Button size="compact-xs" variant="light" onClick={() => onChange(reads)}>
          All read
        </Button>
        <Button size="compact-xs" variant="light" onClick={() => onChange(all)}>
          Everything
        </Button>
        <Button size="compact-xs" variant="subtle" onClick={() => onChange([])}>
          None
        </Button>
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm" verticalSpacing="sm">
        {groupByArea(scopes.data).map(({ area, scopes: areaScopes }) => (
          <Fieldset key={area} legend={area} p="xs">
            {areaScopes.map((entry) => (
              <Checkbox
                key={entry.scope}
                mb={6}
                label={entry.scope}
                description={<Text size="xs" c="dimmed" component="span">{entry.description}</Text>}
                checked={value.includes(entry.scope)}
                onChange={(event) => toggle(entry.scope, event.currentTarget.checked)}
              />
            ))}
          </Fieldset>
        ))}
      </SimpleGrid>
    </Fieldset>
  );
}
