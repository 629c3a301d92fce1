import { Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { call, portal } from '../../api/portal';
import { FormModal, useApiMutation, WholeNumberInput } from '../../components';
import { useInstitution } from '../../session';
import type { Faculty } from '../faculty/faculty';
import { areaKey } from '../shared/areas';
import type { Student } from '../students/students';

/** What differs between adding a student and adding a faculty member: the API's own fields. */
const ROLES = {
  students: {
    title: 'Add a student',
    submitLabel: 'Add student',
    idField: 'student_id',
    idLabel: 'Student ID',
    personalEmail: true,
    note: 'The login email is generated from the name and never changes. A license starts today.',
  },
  faculty: {
    title: 'Add a faculty member',
    submitLabel: 'Add faculty member',
    idField: 'faculty_id',
    idLabel: 'Faculty ID',
    personalEmail: false,
    note: 'The generated login email is what groups and exams name as their owner.',
  },
} as const;

/** POST /students answers a Student, POST /faculty a Faculty member. */
type Created = Student | Faculty;

const LICENSE_DAYS = { min: 1, max: 3650, default: 365 };

/** The form's labels by the API field each input sends: the inputs show them, a refusal speaks with them (with the role's ID field). */
const LABELS = { full_name: 'Full name', personal_email: 'Personal email', license_days: 'License length (days)' } as const;

/** The length of the license a new student or teacher starts with. */
function LicenseDaysInput({ value, onChange, error }: { value: number; onChange(days: number): void; error: string | undefined }) {
  return (
    <WholeNumberInput
      label={LABELS.license_days}
      min={LICENSE_DAYS.min}
      max={LICENSE_DAYS.max}
      required
      value={value}
      onChange={onChange}
      fallback={LICENSE_DAYS.default}
      error={error}
    />
  );
}

/** POST /students or /faculty: name, the school's own id, (students) a personal email, license length. */
export function AddPersonModal({ area, opened, onClose }: { area: keyof typeof ROLES; opened: boolean; onClose(): void }) {
  const institution = useInstitution();
  const role = ROLES[area];
  const labels = { ...LABELS, [role.idField]: role.idLabel };
  const [fullName, setFullName] = useState('');
  const [externalId, setExternalId] = useState('');
  const [personalEmail, setPersonalEmail] = useState('');
  const [licenseDays, setLicenseDays] = useState<number>(LICENSE_DAYS.default);
  const close = () => {
    setFullName('');
    setExternalId('');
    setPersonalEmail('');
    setLicenseDays(LICENSE_DAYS.default);
    onClose();
  };
  const create = useApiMutation({
    mutationFn: (): Promise<Created> => {
      const path = { institution: institution.id };
      return area === 'students'
        ? call(
            portal.POST('/institutions/{institution}/students', {
              params: { path },
              body: {
                full_name: fullName.trim(),
                ...(externalId.trim() ? { student_id: externalId.trim() } : {}),
                ...(personalEmail.trim() ? { personal_email: personalEmail.trim() } : {}),
                license_days: licenseDays,
              },
            }),
          )
        : call(
            portal.POST('/institutions/{institution}/faculty', {
              params: { path },
              body: { full_name: fullName.trim(), ...(externalId.trim() ? { faculty_id: externalId.trim() } : {}), license_days: licenseDays },
            }),
          );
    },
    invalidate: [areaKey(institution.id, area), areaKey(institution.id, 'licenses')],
    success: (person) => `${person.full_name} can sign in as ${person.login_email}.`,
    onSuccess: close,
    labels,
  });
  const errors = create.fieldErrors;
  return (
    <FormModal
      opened={opened}
      title={role.title}
      submitLabel={role.submitLabel}
      loading={create.isPending}
      disabled={!fullName.trim()}
      onSubmit={() => create.mutate()}
      onClose={close}
    >
      <TextInput
        label={labels.full_name}
        required
        maxLength={200}
        value={fullName}
        onChange={(event) => setFullName(event.currentTarget.value)}
        error={errors.full_name}
        data-autofocus
      />
      <TextInput
        label={role.idLabel}
        error={errors[role.idField]}
        description="Your school's own identifier; optional, unique."
        maxLength={100}
        value={externalId}
        onChange={(event) => setExternalId(event.currentTarget.value)}
      />
      {role.personalEmail ? (
        <TextInput
          label={labels.personal_email}
          error={errors.personal_email}
          description="Guardian-facing; used for mail, stored sealed and never shown again."
          type="email"
          maxLength={320}
          value={personalEmail}
          onChange={(event) => setPersonalEmail(event.currentTarget.value)}
        />
      ) : null}
      <LicenseDaysInput value={licenseDays} onChange={setLicenseDays} error={errors.license_days} />
      <Text size="xs" c="dimmed">
        {role.note}
      </Text>
    </FormModal>
  );
}
