import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { fieldErrors, type FieldLabels } from '../api/fieldErrors';
import { notifyError, notifySuccess } from './notify';

interface ApiMutationOptions<TData, TVariables> {
  mutationFn: (variables: TVariables) => Promise<TData>;
  /** The toast shown on success; none when omitted. */
  success?: string | ((data: TData, variables: TVariables) => string);
  /** Queries to refetch after success. */
  invalidate?: QueryKey[];
  onSuccess?: (data: TData, variables: TVariables) => void;
  /**
   * The form's labels by the API field each input sends: a refusal names them in words, in the
   * toast and (`fieldErrors`) under each field. Without them, fields are named from the API's names.
   */
  labels?: FieldLabels;
}

/**
 * A write to the portal API that toasts its result and refreshes what it changed. `fieldErrors`
 * holds a refusal's problems by field, in words with the field's label, for the inputs' `error`.
 */
export function useApiMutation<TData, TVariables = void>(options: ApiMutationOptions<TData, TVariables>) {
  const queryClient = useQueryClient();
  const labels = options.labels ?? {};
  const mutation = useMutation<TData, Error, TVariables>({
    mutationFn: options.mutationFn,
    onSuccess: async (data, variables) => {
      await Promise.all((options.invalidate ?? []).map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      const message = typeof options.success === 'function' ? options.success(data, variables) : options.success;
      if (message) notifySuccess(message);
      options.onSuccess?.(data, variables);
    },
    onError: (error) => notifyError(error, labels),
  });
  return { ...mutation, fieldErrors: fieldErrors(mutation.error, labels) };
}
