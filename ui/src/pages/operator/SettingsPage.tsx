import { Alert, Autocomplete, Badge, Button, Card, Code, Group, Radio, Skeleton, Stack, Text, Textarea, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { call, portal } from '../../api/portal';
import { PageHeader, QueryError, useApiMutation } from '../../components';
import { operatorKey, type ApplianceSettings, type ResolvedSetting } from './operator';

const settingsKey = operatorKey('settings');
/** What "this computer" means for the targets of outbound requests: its loopback names and addresses. */
const THIS_COMPUTER = 'localhost, 127.0.0.1, ::1';

type PrivateHostsChoice = 'off' | 'this-computer' | 'list' | 'all';

function choiceOf(value: string): PrivateHostsChoice {
  if (value === 'off' || value === 'all') return value;
  return value === THIS_COMPUTER ? 'this-computer' : 'list';
}

function SourceBadge({ setting, variable }: { setting: ResolvedSetting; variable: string }) {
  if (setting.source === 'env') {
    return (
      <Badge color="orange" variant="light" title={`${variable} is set where CampusBridge starts; it wins over this page.`}>
        From {variable}
      </Badge>
    );
  }
  return (
    <Badge color={setting.source === 'setting' ? 'blue' : 'gray'} variant="light">
      {setting.source === 'setting' ? 'Saved here' : 'Default'}
    </Badge>
  );
}

/** Each setting's form names its one field, `value`, by the label of its input. */
const VALUE_LABEL = { public_url: 'Address', outbound_private_hosts: 'Hosts and networks' } as const;

function useSaveSetting(name: 'public_url' | 'outbound_private_hosts', success: string) {
  return useApiMutation({
    mutationFn: (value: string) => call(portal.PUT('/operator/settings/{name}', { params: { path: { name } }, body: { value } })),
    invalidate: [settingsKey, ['appliance']],
    success,
    labels: { value: VALUE_LABEL[name] },
  });
}

function AddressCard({ data }: { data: ApplianceSettings }) {
  const current = data.settings.public_url;
  const [url, setUrl] = useState(current.value);
  const save = useSaveSetting('public_url', 'Address saved. New links use it from now on.');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(url.trim());
  };
  return (
    <Card withBorder padding="lg">
      <form onSubmit={submit} aria-label="Address of this appliance">
        <Stack>
          <Group justify="space-between">
            <Title order={4}>Address of this appliance</Title>
            <SourceBadge setting={current} variable="PUBLIC_URL" />
          </Group>
          <Text size="sm" c="dimmed">
            Every link CampusBridge makes starts with it: students&apos; launch links, invitations, file links and the links in mail. Use an address the other
            computers of the school can open, such as this computer&apos;s name or its address on the campus network.
          </Text>
          {data.link_warning ? (
            <Alert color="orange" title="Links will not open where they should">
              {data.link_warning}
            </Alert>
          ) : null}
          {data.network_hint ? (
            <Alert color="blue" title="Only this computer can reach CampusBridge now">
              {data.network_hint}
            </Alert>
          ) : null}
          {current.source === 'env' ? (
            <Alert color="orange" title="Set where CampusBridge starts">
              PUBLIC_URL is set in the environment ({current.value}); it wins over what is saved here.
            </Alert>
          ) : null}
          <Autocomplete
            label={VALUE_LABEL.public_url}
            error={save.fieldErrors.value}
            description={`CampusBridge listens on ${data.listening.host}, port ${data.listening.port}.`}
            required
            maxLength={2000}
            value={url}
            onChange={setUrl}
            data={data.address_suggestions.map((suggestion) => ({ value: suggestion.url, label: `${suggestion.url} — ${suggestion.label}` }))}
          />
          <Group justify="flex-end">
            {current.source === 'setting' ? (
              <Button variant="default" onClick={() => save.mutate('default')} loading={save.isPending}>
                Use the default
              </Button>
            ) : null}
            <Button type="submit" loading={save.isPending}>
              Save address
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function PrivateTargetsCard({ data }: { data: ApplianceSettings }) {
  const current = data.settings.outbound_private_hosts;
  const [choice, setChoice] = useState<PrivateHostsChoice>(choiceOf(current.value));
  const [hosts, setHosts] = useState(choiceOf(current.value) === 'list' ? current.value : '');
  const save = useSaveSetting('outbound_private_hosts', 'Saved. Webhooks, LTI platforms and the SIS are checked against it from now on.');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(choice === 'this-computer' ? THIS_COMPUTER : choice === 'list' ? hosts.trim() : choice);
  };
  return (
    <Card withBorder padding="lg">
      <form onSubmit={submit} aria-label="Requests to this computer or the campus network">
        <Stack>
          <Group justify="space-between">
            <Title order={4}>Requests to this computer or the campus network</Title>
            <SourceBadge setting={current} variable="OUTBOUND_PRIVATE_HOSTS" />
          </Group>
          <Text size="sm" c="dimmed">
            What CampusBridge calls (webhook endpoints, LTI platforms, the SIS) must use https:// and a public address, so a key holder cannot make this
            appliance call into the school&apos;s network. An LMS or SIS on this computer or on the campus network is allowed here, by name; every other private
            address stays refused, when an endpoint is saved and at each request.
          </Text>
          <Radio.Group value={choice} onChange={(value) => setChoice(value as PrivateHostsChoice)} label="Allow requests to">
            <Stack gap="xs" mt="xs">
              <Radio value="off" label="Public https:// addresses only" />
              <Radio value="this-computer" label={`This computer (${THIS_COMPUTER})`} />
              <Radio value="list" label="These hosts and networks" />
              <Radio value="all" label="Any loopback or private address (not link-local)" />
            </Stack>
          </Radio.Group>
          {choice === 'list' ? (
            <Textarea
              label={VALUE_LABEL.outbound_private_hosts}
              error={save.fieldErrors.value}
              description="Host names, IP addresses and CIDR ranges, separated by commas: moodle.campus.lan, 10.20.0.0/16, 127.0.0.1"
              required
              autosize
              minRows={2}
              maxLength={2000}
              value={hosts}
              onChange={(event) => setHosts(event.currentTarget.value)}
            />
          ) : null}
          <Group justify="space-between">
            <Text size="xs" c="dimmed">
              Now: <Code>{current.value}</Code>
            </Text>
            <Button type="submit" loading={save.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

export function SettingsPage() {
  const settings = useQuery({ queryKey: settingsKey, queryFn: () => call(portal.GET('/operator/settings')) });
  return (
    <>
      <PageHeader
        title="Settings"
        description="How this appliance is reached, and what it may call on the campus network. The same as `settings get` and `settings set`."
      />
      <Stack gap="xl" maw={760}>
        {settings.error ? (
          <QueryError error={settings.error} />
        ) : settings.isPending ? (
          <Stack gap="sm" aria-busy="true" aria-label="Loading">
            {[0, 1].map((index) => (
              <Skeleton key={index} height={120} radius="sm" />
            ))}
          </Stack>
        ) : (
          <>
            {/* Re-mounted when the saved values change, so each form starts from what the server holds. */}
            <AddressCard key={`url-${settings.data.settings.public_url.value}`} data={settings.data} />
            <PrivateTargetsCard key={`hosts-${settings.data.settings.outbound_private_hosts.value}`} data={settings.data} />
          </>
        )}
      </Stack>
    </>
  );
}
