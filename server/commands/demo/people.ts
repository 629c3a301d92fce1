import type { Database } from '../../db/index.js';
import type { Tenant } from '../../db/tenant.js';
import { openBody, openRecipient } from '../../mail/outbox.js';
import type { GuardianType } from '../../models/guardian.js';
import type { PersonRow } from '../../models/person.js';
import { addGroupMembers, createGroup } from '../people/groups.js';
import { acceptGuardianInvite, createGuardianLink } from '../people/guardians.js';
import { createPerson } from '../people/people.js';
import { createStudent } from '../people/students.js';
import { range } from './random.js';

const LICENSE_DAYS = 365;

interface DemoPerson {
  full_name: string;
  external_id?: string;
  personal_email?: string;
}

const FACULTY: readonly DemoPerson[] = [
  { full_name: 'Miriam Okafor', external_id: 'T-101' },
  { full_name: 'Daniel Brennan', external_id: 'T-102' },
  { full_name: 'Priya Raman', external_id: 'T-103' },
];

export const STUDENTS: readonly DemoPerson[] = [
  { full_name: 'Amara Nwosu', external_id: 'S-2401', personal_email: 'amara.nwosu@example.org' },
  { full_name: 'Lucas Ferreira', external_id: 'S-2402' },
  { full_name: 'Sofia Lindqvist', external_id: 'S-2403' },
  { full_name: 'Kenji Watanabe', personal_email: 'kenji.w@example.org' },
  { full_name: 'Isabella Rossi', external_id: 'S-2405' },
  { full_name: 'Mateo García', external_id: 'S-2406' },
  { full_name: 'Chloé Dubois', external_id: 'S-2407', personal_email: 'chloe.dubois@example.org' },
  { full_name: 'Noah Schmidt' },
  { full_name: 'Aisha Rahman', external_id: 'S-2409' },
  { full_name: 'Oliver Bennett', external_id: 'S-2410', personal_email: 'oliver.bennett@example.org' },
  { full_name: 'Zara Ahmed', external_id: 'S-2411' },
  { full_name: 'Ethan Kowalski' },
  { full_name: 'Mei Lin Chen', external_id: 'S-2413', personal_email: 'meilin.chen@example.org' },
  { full_name: 'Samuel Osei', external_id: 'S-2414' },
  { full_name: 'Hannah Müller', external_id: 'S-2415' },
  { full_name: 'Diego Hernández', personal_email: 'diego.hernandez@example.org' },
  { full_name: 'Leila Haddad', external_id: 'S-2417' },
  { full_name: "Finn O'Connor", external_id: 'S-2418' },
  { full_name: 'Ana Popescu', external_id: 'S-2419', personal_email: 'ana.popescu@example.org' },
  { full_name: 'Jonah Goldberg' },
  { full_name: 'Nadia Petrova', external_id: 'S-2421' },
  { full_name: 'Tomás Silva', external_id: 'S-2422' },
  { full_name: 'Yuki Tanaka', personal_email: 'yuki.tanaka@example.org' },
  { full_name: 'Emma Johansson', external_id: 'S-2424' },
];

export interface DemoGroup {
  name: string;
  description: string;
  owner: number;
  /** Indexes into STUDENTS: members at creation. */
  members: readonly number[];
  /** Members who join later (a `group.updated` in the stream). */
  joinLater?: readonly number[];
}

export const GROUPS: readonly DemoGroup[] = [
  { name: 'Physics 101 – Section A', description: 'Mechanics and measurement, Tuesdays and Thursdays.', owner: 0, members: range(0, 9) },
  { name: 'Introduction to Programming', description: 'Python from the first loop to small projects.', owner: 1, members: range(8, 17) },
  { name: 'World History – Year 10', description: 'Revolutions, industry and empire, 1750–1914.', owner: 2, members: range(16, 23), joinLater: [2, 5] },
];

interface DemoGuardian {
  student: number;
  guardian_email: string;
  guardian_name: string;
  guardian_type: GuardianType;
  is_primary: boolean;
  /** Accepted through the link in the invitation mail, as the guardian would. */
  accepts: boolean;
}

const GUARDIANS: readonly DemoGuardian[] = [
  { student: 0, guardian_email: 'ngozi.nwosu@example.org', guardian_name: 'Ngozi Nwosu', guardian_type: 'mother', is_primary: true, accepts: true },
  { student: 4, guardian_email: 'marco.rossi@example.org', guardian_name: 'Marco Rossi', guardian_type: 'father', is_primary: true, accepts: false },
  { student: 12, guardian_email: 'wei.chen@example.org', guardian_name: 'Wei Chen', guardian_type: 'guardian', is_primary: false, accepts: false },
];

/** What a guardian does: open the link of the invitation mail (read from the outbox, where it waits). */
async function acceptInvitationFromMail(db: Database, tenant: Tenant, guardianEmail: string): Promise<void> {
  const mails = await tenant.mailOutbox.findAll({ where: { kind: 'guardian_invite' }, order: [['created_at', 'DESC']] });
  const mail = mails.find((row) => openRecipient(db, row) === guardianEmail);
  const token = mail ? /[?&]token=([A-Za-z0-9]+)/.exec(openBody(db, mail) ?? '')?.[1] : undefined;
  if (!token) throw new Error(`demo seed: no invitation mail for ${guardianEmail}`);
  if (!(await acceptGuardianInvite(db, token))) throw new Error(`demo seed: the invitation of ${guardianEmail} was refused`);
}

/** The demo's people as the other steps name them: by their index in FACULTY, STUDENTS and GROUPS. */
export interface DemoPeople {
  student: (index: number) => PersonRow;
  teacher: (index: number) => PersonRow;
  groupIds: string[];
}

/** Faculty, students, their groups and the guardians (one of whom accepts), each through its own command. */
export async function seedPeopleAndGroups(db: Database, tenant: Tenant, options: { portalUrl: string }): Promise<DemoPeople> {
  const faculty: PersonRow[] = [];
  for (const person of FACULTY) {
    faculty.push(
      await tenant.inTransaction((tx) =>
        createPerson(tx, 'faculty', { full_name: person.full_name, external_id: person.external_id ?? null, license_days: LICENSE_DAYS }),
      ),
    );
  }
  const students: PersonRow[] = [];
  for (const person of STUDENTS) {
    students.push(
      await createStudent(tenant, {
        full_name: person.full_name,
        student_id: person.external_id ?? null,
        personal_email: person.personal_email ?? null,
        license_days: LICENSE_DAYS,
      }),
    );
  }
  const student = (index: number) => students[index] as PersonRow;
  const teacher = (index: number) => faculty[index] as PersonRow;

  const groupIds: string[] = [];
  for (const group of GROUPS) {
    const { group: row } = await createGroup(tenant, {
      name: group.name,
      description: group.description,
      faculty_id: teacher(group.owner).id,
      student_ids: group.members.map((index) => student(index).id),
    });
    if (group.joinLater)
      await addGroupMembers(
        tenant,
        row.id,
        group.joinLater.map((index) => student(index).id),
      );
    groupIds.push(row.id);
  }

  // Before the exams, so the verified guardian is told of the assignments too.
  for (const guardian of GUARDIANS) {
    await createGuardianLink(
      tenant,
      {
        student_id: student(guardian.student).id,
        guardian_email: guardian.guardian_email,
        guardian_name: guardian.guardian_name,
        guardian_type: guardian.guardian_type,
        is_primary: guardian.is_primary,
      },
      { portalUrl: options.portalUrl },
    );
    if (guardian.accepts) await acceptInvitationFromMail(db, tenant, guardian.guardian_email);
  }
  return { student, teacher, groupIds };
}
