import { Alert, Code, Text } from '@mantine/core';
import { useState } from 'react';
import { ApiError, call, portal } from '../../api/portal';
import { FormModal, SecretOnce, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { EMPTY_FORM, EndpointFields, type EndpointFormValues } from './EndpointFields';
import { ENDPOINT_LABELS, endpointsKey, MAX_ENDPOINTS, type CreatedEndpoint } from './webhooks';

/** Adds an endpoint, then shows its signing secret, once. */
export function CreateEndpointModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const institution = useInstitution();
  const [values, setValues] = useState<EndpointFormValues>(EMPTY_FORM);
  const [created, setCreated] = useState<CreatedEndpoint | null>(null);
  const create = useApiMutation({
    mutationFn: () =>
      call(
        portal.POST('/institutions/{institution}/webhooks/endpoints', {
          params: { path: { institution: institution.id } },
          body: { url: values.url.trim(), description: values.description.trim(), events: values.events },
        }),
      ),
    invalidate: [endpointsKey(institution.id)],
    success: 'Endpoint added.',
    onSuccess: setCreated,
    labels: ENDPOINT_LABELS,
  });
  const close = () => {
    setValues(EMPTY_FORM);
    setCreated(null);
    create.reset();
    onClose();
  };
  const atLimit = create.error instanceof ApiError && create.error.code === 'endpoint_limit';

  return (
    <FormModal
      opened={opened}
      title={created ? 'Endpoint added' : 'Add a webhook endpoint'}
      size="lg"
      submitLabel="Create endpoint"
      loading={create.isPending}
      disabled={!values.url.trim() || values.events.length === 0}
      onSubmit={() => create.mutate()}
      onClose={close}
      outcome={
        created ? (
          <>
            <SecretOnce
              label="Signing secret"
              value={created.secret}
              note="Your receiver checks each delivery's signature with this secret. Copy it now: it is shown only this once (rotate it to get a new one)."
            />
            <Text size="sm">
              <Code>{created.url}</Code> receives {created.events.join(', ')}.
            </Text>
          </>
        ) : null
      }
    >
      {atLimit ? (
        <Alert color="yellow" title={`At most ${MAX_ENDPOINTS} endpoints`} role="alert">
          This institution already has {MAX_ENDPOINTS} webhook endpoints. Delete one you no longer use, then add this one.
        </Alert>
      ) : null}
      <EndpointFields values={values} onChange={setValues} errors={create.fieldErrors} />
    </FormModal>
  );
}
