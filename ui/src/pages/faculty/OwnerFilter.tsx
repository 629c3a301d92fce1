import { Select } from '@mantine/core';
import { useFacultyOptions } from './faculty';

/** Narrows a list to one owning teacher. */
export function OwnerFilter({
  institutionId,
  value,
  onChange,
  width,
}: {
  institutionId: string;
  value: string;
  onChange(facultyId: string | null): void;
  width: number;
}) {
  const faculty = useFacultyOptions(institutionId);
  return (
    <Select
      label="Owner"
      placeholder="Any teacher"
      data={(faculty.data?.items ?? []).map((teacher) => ({ value: teacher.id, label: teacher.full_name }))}
      value={value || null}
      onChange={onChange}
      clearable
      searchable
      nothingFoundMessage="No teacher by that name"
      w={width}
    />
  );
}
