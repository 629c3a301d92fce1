import { MultiSelect, Skeleton, Stack, Text } from '@mantine/core';
import { useMemo } from 'react';
import { QueryError } from '../../components';
import { useInstitution } from '../../session';
import { ENDPOINT_LABELS, useEventTypes, type EventType } from './webhooks';

interface PatternOption {
  value: string;
  description: string;
}

/** `*`, one `<area>.*` per area, then every exact type under its area: what the API accepts as patterns. */
export function patternGroups(types: readonly EventType[], extra: readonly string[] = []): Array<{ group: string; options: PatternOption[] }> {
  const areas = [...new Set(types.map((type) => type.area))];
  const groups: Array<{ group: string; options: PatternOption[] }> = [
    {
      group: 'Wildcards',
      options: [
        { value: '*', description: 'Every event, including types added later.' },
        ...areas.map((area) => ({ value: `${area}.*`, description: `Every ${area.replaceAll('_', ' ')} event.` })),
      ],
    },
    ...areas.map((area) => ({
      group: area,
      options: types.filter((type) => type.area === area).map((type) => ({ value: type.type, description: type.description })),
    })),
  ];
  const known = new Set(groups.flatMap((group) => group.options.map((option) => option.value)));
  // Patterns set through the API that the picker does not offer (`alpha.enrollment.*`) stay visible and removable.
  const other = extra.filter((pattern) => !known.has(pattern));
  if (other.length > 0) groups.push({ group: 'Other patterns', options: other.map((value) => ({ value, description: 'Set through the API.' })) });
  return groups;
}

/** The event patterns an endpoint receives: a searchable multi-select grouped by area, each option with what it means. */
export function EventPatternPicker({ value, onChange, error }: { value: string[]; onChange(patterns: string[]): void; error?: string | null }) {
  const institution = useInstitution();
  const types = useEventTypes(institution.id);
  const groups = useMemo(() => (types.data ? patternGroups(types.data, value) : []), [types.data, value]);
  const data = useMemo(() => groups.map(({ group, options }) => ({ group, items: options.map((option) => option.value) })), [groups]);
  const descriptions = useMemo(() => new Map(groups.flatMap(({ options }) => options.map((option) => [option.value, option.description] as const))), [groups]);

  if (types.error) return <QueryError error={types.error} />;
  if (!types.data) return <Skeleton height={60} />;
  return (
    <MultiSelect
      label={ENDPOINT_LABELS.events}
      description="Which events this endpoint receives: * for all, a family such as student.*, or exact types."
      placeholder={value.length === 0 ? 'Pick event types or patterns' : undefined}
      data={data}
      value={value}
      onChange={onChange}
      searchable
      clearable
      required
      error={error}
      nothingFoundMessage="No event type matches"
      maxDropdownHeight={320}
      comboboxProps={{ withinPortal: true }}
      renderOption={({ option }) => (
        <Stack gap={0}>
          <Text size="sm" ff="monospace">
            {option.value}
          </Text>
          <Text size="xs" c="dimmed">
            {descriptions.get(option.value)}
          </Text>
        </Stack>
      )}
    />
  );
}
