import { Badge, Code } from '@mantine/core';
import type { ColumnDef } from '@tanstack/react-table';
import { DataTable, PageHeader } from '../../components';
import { useScopes, type ScopeInfo } from './scopes';

const columns: ColumnDef<ScopeInfo>[] = [
  { header: 'Scope', accessorKey: 'scope', cell: ({ row }) => <Code>{row.original.scope}</Code> },
  {
    header: 'Access',
    id: 'access',
    cell: ({ row }) =>
      row.original.scope.endsWith(':read') ? (
        <Badge variant="light">read</Badge>
      ) : (
        <Badge variant="light" color="orange">
          write
        </Badge>
      ),
  },
  { header: 'What it grants', accessorKey: 'description' },
  {
    header: 'Granted by',
    id: 'granted_by',
    cell: ({ row }) =>
      row.original.admin_only ? (
        <Badge variant="light" color="grape">
          admins only
        </Badge>
      ) : (
        'admins and developers'
      ),
  },
];

export function ScopesPage() {
  const scopes = useScopes();
  return (
    <>
      <PageHeader
        title="Scopes"
        description={`A key may call an operation only if it holds the operation's scope. ${scopes.data ? `There are ${scopes.data.length}.` : ''} A write scope includes its read scope.`}
      />
      <DataTable
        label="Scopes"
        columns={columns}
        data={scopes.data}
        isLoading={scopes.isPending}
        error={scopes.error}
        empty={{ title: 'No scopes' }}
        getRowId={(row) => row.scope}
      />
    </>
  );
}
