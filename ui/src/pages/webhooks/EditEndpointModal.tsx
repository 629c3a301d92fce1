import { useState } from 'react';
import { call, portal } from '../../api/portal';
import { FormModal, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { EndpointFields, type EndpointFormValues } from './EndpointFields';
import { ENDPOINT_LABELS, endpointsKey, type WebhookEndpoint } from './webhooks';

/** Changes an endpoint's URL, description and event patterns. */
export function EditEndpointModal({ endpoint, onClose }: { endpoint: WebhookEndpoint; onClose(): void }) {
  const institution = useInstitution();
  const [values, setValues] = useState<EndpointFormValues>({ url: endpoint.url, description: endpoint.description, events: endpoint.events });
  const update = useApiMutation({
    mutationFn: () =>
      call(
        portal.PATCH('/institutions/{institution}/webhooks/endpoints/{id}', {
          params: { path: { institution: institution.id, id: endpoint.id } },
          body: { url: values.url.trim(), description: values.description.trim(), events: values.events },
        }),
      ),
    invalidate: [endpointsKey(institution.id)],
    success: 'Endpoint updated.',
    onSuccess: onClose,
    labels: ENDPOINT_LABELS,
  });
  return (
    <FormModal
      opened
      title="Edit endpoint"
      size="lg"
      submitLabel="Save"
      loading={update.isPending}
      disabled={!values.url.trim() || values.events.length === 0}
      onSubmit={() => update.mutate()}
      onClose={onClose}
    >
      <EndpointFields values={values} onChange={setValues} errors={update.fieldErrors} />
    </FormModal>
  );
}
