import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { notifyError, notifySuccess } from './notify';

interface ApiMutationOptions<TData, TVariables> {
  mutationFn: (variables: TVariables) => Promise<TData>;
  /** The toast shown on success; none when omitted. */
  success?: string | ((data: TData, variables: TVariables) => string);
  /** Queries to refetch after success. */
  invalidate?: QueryKey[];
  onSuccess?: (data: TData, variables: TVariables) => void;
}

/** A write to the portal API that toasts its result and refreshes what it changed. */
export function useApiMutation<TData, TVariables = void>(options: ApiMutationOptions<TData, TVariables>) {
  const queryClient = useQueryClient();
  return useMutation<TData, Error, TVariables>({
    mutationFn: options.mutationFn,
    onSuccess: async (data, variables) => {
      await Promise.all((options.invalidate ?? []).map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      const message = typeof options.success === 'function' ? options.success(data, variables) : options.success;
      if (message) notifySuccess(message);
      options.onSuccess?.(data, variables);
    },
    onError: notifyError,
  });
}
