import { Code, Text } from '@mantine/core';
import { call, portal } from '../../api/portal';
import { ConfirmModal, useApiMutation } from '../../components';
import { useInstitution } from '../../session';
import { webhooksKey, type WebhookEndpoint } from './webhooks';

/** Deletes an endpoint and its deliveries, once confirmed. */
export function DeleteEndpointModal({ endpoint, onClose }: { endpoint: WebhookEndpoint; onClose(): void }) {
  const institution = useInstitution();
  const remove = useApiMutation({
    mutationFn: () =>
      call(portal.DELETE('/institutions/{institution}/webhooks/endpoints/{id}', { params: { path: { institution: institution.id, id: endpoint.id } } })),
    // Its deliveries go with it: the log changes too.
    invalidate: [webhooksKey(institution.id)],
    success: 'Endpoint deleted.',
    onSuccess: onClose,
  });
  return (
    <ConfirmModal
      opened
      title="Delete this endpoint?"
      confirmLabel="Delete endpoint"
      color="red"
      loading={remove.isPending}
      onConfirm={() => remove.mutate()}
      onClose={onClose}
    >
      <Text size="sm">
        <Code>{endpoint.url}</Code> stops receiving events, and its deliveries, queued ones included, are deleted with it. This cannot be undone.
      </Text>
    </ConfirmModal>
  );
}
