import { Alert, Button, Group, Radio, Skeleton, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { call, portal } from '../../api/portal';

/** `null`: keep the default (the address CampusBridge listens on). */
export type ChosenAddress = string | null;

const OTHER = 'other';
const DEFAULT = 'default';

/** The same rule as the server's: an http(s) origin, no path, not 0.0.0.0 or ::. */
function addressProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return 'An address such as http://campusbridge.school.lan:4780.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'It must start with http:// or https://.';
  if (url.pathname !== '/' || url.search || url.hash || url.username) return 'Only the scheme, host and port: no path.';
  if (['0.0.0.0', '[::]'].includes(url.hostname)) return 'Give an address other computers can open.';
  return null;
}

/**
 * The wizard's address step: where students' launch links, invitations and mail will point. It
 * offers only addresses CampusBridge answers on: this computer's name and LAN addresses while it
 * serves the network; while it listens on this computer only, it says how to change that.
 * "This computer only" keeps the default.
 */
export function SetupAddressStep({ onBack, onNext }: { onBack(): void; onNext(address: ChosenAddress): void }) {
  const addresses = useQuery({ queryKey: ['setup', 'addresses'], queryFn: () => call(portal.GET('/setup/addresses')) });
  const [choice, setChoice] = useState<string>(DEFAULT);
  const [other, setOther] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  const next = (event: FormEvent) => {
    event.preventDefault();
    if (choice === DEFAULT) return onNext(null);
    const value = choice === OTHER ? other.trim() : choice;
    const why = addressProblem(value);
    setProblem(why);
    if (!why) onNext(new URL(value).origin);
  };

  return (
    <form onSubmit={next} aria-label="Address of this appliance">
      <Stack mt="md">
        <Text size="sm" c="dimmed">
          Students, guardians and other computers open the links CampusBridge makes (launch links, invitations, mail) at this address. Choose one the other
          computers of the school can reach; it can be changed later in Settings.
        </Text>
        {addresses.error ? (
          <Alert color="yellow">This computer&apos;s addresses could not be read; type the address below.</Alert>
        ) : addresses.isPending ? (
          <Skeleton height={96} radius="sm" aria-label="Loading" />
        ) : (
          <>
            {addresses.data.network_hint ? (
              <Alert color="blue" title="Only this computer can reach CampusBridge now">
                {addresses.data.network_hint}
              </Alert>
            ) : null}
            <Radio.Group value={choice} onChange={setChoice} label="Address">
              <Stack gap="xs" mt="xs">
                <Radio value={DEFAULT} label={`This computer only (${addresses.data.default_url})`} />
                {addresses.data.address_suggestions.map((suggestion) => (
                  <Radio key={suggestion.url} value={suggestion.url} label={`${suggestion.url} — ${suggestion.label}`} />
                ))}
                <Radio value={OTHER} label="Another address (a name in the school's DNS, or a reverse proxy)" />
              </Stack>
            </Radio.Group>
          </>
        )}
        {choice === OTHER || addresses.error ? (
          <TextInput
            label="Other address"
            placeholder="http://campusbridge.school.lan:4780"
            value={other}
            onChange={(event) => {
              setOther(event.currentTarget.value);
              if (addresses.error) setChoice(OTHER);
            }}
            maxLength={2000}
          />
        ) : null}
        {problem ? (
          <Alert color="red" role="alert">
            {problem}
          </Alert>
        ) : null}
        <Group justify="space-between">
          <Button variant="default" onClick={onBack}>
            Back
          </Button>
          <Button type="submit">Next</Button>
        </Group>
      </Stack>
    </form>
  );
}
