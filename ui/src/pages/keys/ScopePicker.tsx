import { Button, Checkbox, Fieldset, Group, SimpleGrid, Skeleton, Text } from '@mantine/core';
import { QueryError } from '../../components';
import type { MembershipRole } from '../../session';
import { groupByArea, useScopes, type ScopeInfo } from '../scopes/scopes';

/**
 * Scopes grouped by area, read and write side by side, each with what it grants. A developer
 * sees the admin-only scopes but cannot pick them: the server refuses them too (403).
 */
export function ScopePicker({
  value,
  onChange,
  role,
  error,
}: {
  value: string[];
  onChange(scopes: string[]): void;
  role: MembershipRole;
  /** A refusal of the scopes, in words, shown under them. */
  error?: string | undefined;
}) {
  const scopes = useScopes();
  if (scopes.error) return <QueryError error={scopes.error} />;
  if (!scopes.data) return <Skeleton height={200} />;
  const toggle = (scope: string, checked: boolean) => onChange(checked ? [...value, scope] : value.filter((entry) => entry !== scope));
  const grantable = (entry: ScopeInfo) => role === 'admin' || !entry.admin_only;
  const all = scopes.data.filter(grantable).map((entry) => entry.scope);
  const reads = all.filter((scope) => scope.endsWith(':read'));
  return (
    <Fieldset legend={`Scopes (${value.length} selected)`} variant="unstyled">
      {role !== 'admin' ? (
        <Text size="xs" c="dimmed" mb="xs">
          Scopes marked “admins only” (licenses, the institution’s settings, merit credits, coupon batches) can be granted only by an admin of this institution.
        </Text>
      ) : null}
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
                label={grantable(entry) ? entry.scope : `${entry.scope} (admins only)`}
                description={
                  <Text size="xs" c="dimmed" component="span">
                    {entry.description}
                  </Text>
                }
                disabled={!grantable(entry)}
                checked={value.includes(entry.scope)}
                onChange={(event) => toggle(entry.scope, event.currentTarget.checked)}
              />
            ))}
          </Fieldset>
        ))}
      </SimpleGrid>
      {error ? (
        <Text size="sm" c="red" mt="xs" role="alert">
          {error}
        </Text>
      ) : null}
    </Fieldset>
  );
}
