import { Textarea, TextInput } from '@mantine/core';
import { EventPatternPicker } from './EventPatternPicker';
import { ENDPOINT_LABELS } from './webhooks';

export interface EndpointFormValues {
  url: string;
  description: string;
  events: string[];
}

/** URL, description and event patterns: the same fields to add an endpoint and to edit one; `errors` from the mutation's `fieldErrors`. */
export function EndpointFields({
  values,
  onChange,
  errors,
}: {
  values: EndpointFormValues;
  onChange(values: EndpointFormValues): void;
  errors: Partial<Record<string, string>>;
}) {
  return (
    <>
      <TextInput
        label={ENDPOINT_LABELS.url}
        description="Where deliveries are POSTed: https, on a public host. An LMS on this computer or the campus network (http allowed) must first be allowed by the appliance operator in Appliance → Settings."
        placeholder="https://lms.example.edu/hooks/campusbridge"
        type="url"
        required
        maxLength={2048}
        value={values.url}
        onChange={(event) => onChange({ ...values, url: event.currentTarget.value })}
        error={errors.url}
        data-autofocus
      />
      <Textarea
        label={ENDPOINT_LABELS.description}
        error={errors.description}
        description="Optional: what this endpoint is for."
        maxLength={500}
        autosize
        minRows={1}
        value={values.description}
        onChange={(event) => onChange({ ...values, description: event.currentTarget.value })}
      />
      <EventPatternPicker value={values.events} onChange={(events) => onChange({ ...values, events })} error={errors.events} />
    </>
  );
}

export const EMPTY_FORM: EndpointFormValues = { url: '', description: '', events: [] };
