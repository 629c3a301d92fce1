import { Code, Text } from '@mantine/core';
import { useState } from 'react';
import { call, portal } from '../../api/portal';
import { formatDate, FormModal, SecretOnce, useApiMutation, WholeNumberInput } from '../../components';
import { useInstitution } from '../../session';
import { endpointsKey, GRACE_HOURS, type RotatedEndpoint, type WebhookEndpoint } from './webhooks';

/** The form's label by API field: shown on the input, and in a refusal's words. */
const LABELS = { grace_hours: 'Grace period (hours)' } as const;

/** Replaces an endpoint's signing secret; the current one may keep signing for a grace period. */
export function RotateSecretModal({ endpoint, onClose }: { endpoint: WebhookEndpoint; onClose(): void }) {
  const institution = useInstitution();
  const [graceHours, setGraceHours] = useState<number>(GRACE_HOURS.default);
  const [rotated, setRotated] = useState<RotatedEndpoint | null>(null);
  const rotate = useApiMutation({
    mutationFn: () =>
      call(
        portal.POST('/institutions/{institution}/webhooks/endpoints/{id}/rotate-secret', {
          params: { path: { institution: institution.id, id: endpoint.id } },
          body: { grace_hours: graceHours },
        }),
      ),
    invalidate: [endpointsKey(institution.id)],
    success: 'Secret rotated.',
    onSuccess: setRotated,
    labels: LABELS,
  });
  return (
    <FormModal
      opened
      title={rotated ? 'New signing secret' : 'Rotate the signing secret'}
      size="lg"
      submitLabel="Rotate secret"
      loading={rotate.isPending}
      onSubmit={() => rotate.mutate()}
      onClose={onClose}
      outcome={
        rotated ? (
          <>
            <SecretOnce label="New signing secret" value={rotated.secret} />
            <Text size="sm">
              {graceHours > 0
                ? `Until ${formatDate(rotated.previous_secret_expires_at)} deliveries are signed with both the old and the new secret, so your receiver can switch without missing any.`
                : 'The old secret no longer signs deliveries.'}
            </Text>
          </>
        ) : null
      }
    >
      <Text size="sm">
        A new secret signs deliveries to <Code>{endpoint.url}</Code> from now on. During the grace period the current secret signs them too.
      </Text>
      <WholeNumberInput
        label={LABELS.grace_hours}
        error={rotate.fieldErrors.grace_hours}
        description={`From ${GRACE_HOURS.min} to ${GRACE_HOURS.max}; 0 retires the current secret at once.`}
        min={GRACE_HOURS.min}
        max={GRACE_HOURS.max}
        required
        value={graceHours}
        onChange={setGraceHours}
        fallback={0}
        data-autofocus
      />
    </FormModal>
  );
}
