export { DataTable, type EmptyState, type TablePagination } from './DataTable';
export { formatDate, formatRelative } from './format';
export { useApiMutation } from './mutation';
export { notifyError, notifySuccess } from './notify';
export { PageHeader } from './PageHeader';
export { QueryError } from './QueryError';
export { SecretOnce } from './SecretOnce';
export { StatusBadge } from './StatusBadge';
