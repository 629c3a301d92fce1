import { Textarea, TextInput } from '@mantine/core';
import { ApiError } from '../../api/client';
import { EventPatternPicker } from './EventPatternPicker';

/** The field an API refusal is about, so the form can show it under that field. */
function fieldErrors(error: unknown): { url?: string; events?: string } {
  if (!(error instanceof ApiError)) return {};
  if (error.code === 'https_required' || error.code === 'private_host') return { url: error.message };
  if (error.code === 'events_required') return { events: error.message };
  return {};
}

export interface EndpointFormValues {
  url: string;
  description: string;
  events: string[];
}

/** URL, description and event patterns: the same fields to add an endpoint and to edit one. */
export function EndpointFields({ values, onChange, error }: { values: EndpointFormValues; onChange(values: EndpointFormValues): void; error: unknown }) {
  const errors = fieldErrors(error);
  return (
    <>
      <TextInput
        label="URL"
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
        label="Description"
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
