import type { Database } from '../../db/index.js';
import type { Tenant } from '../../db/tenant.js';
import type { InstitutionRow } from '../../models/institution.js';
import type { PersonRow } from '../../models/person.js';
import { recordActivity } from '../alpha/activity.js';
import { createCurriculum } from '../alpha/curricula.js';
import { createEnrollments, updateEnrollment } from '../alpha/enrollments.js';
import { ALPHA_RULES } from '../alpha/rules.js';
import type { LearnerAuth } from '../learner/auth.js';
import { exchangeLaunchToken, LAUNCH_TTL_DEFAULT_SECONDS, mintLaunchToken } from '../learner/sso.js';
import type { DemoPeople } from './people.js';
import { range, type Rng } from './random.js';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** Three weeks of practice, ending today: enough for streaks and mastered concepts, few enough (about 100 activities) to seed in a second or two. */
const DAYS = 21;
const DAILY_TARGET_MINUTES = 15;

interface DemoCurriculum {
  name: string;
  description: string;
  concepts: readonly string[];
  /** Indexes into STUDENTS. */
  students: readonly number[];
  guide: number;
}

const CURRICULA: readonly DemoCurriculum[] = [
  {
    name: 'Fractions',
    description: 'From halves and quarters to adding mixed numbers.',
    concepts: ['Halves and quarters', 'Equivalent fractions', 'Comparing fractions', 'Adding fractions', 'Mixed numbers'],
    students: range(0, 3),
    guide: 0,
  },
  {
    name: 'Algebra foundations',
    description: 'Expressions, equations and the first straight-line graphs.',
    concepts: ['Variables', 'Simplifying expressions', 'One-step equations', 'Two-step equations', 'Graphing lines'],
    students: range(3, 6),
    guide: 1,
  },
];

/** Practises every one of the last days, whatever their habit: the streak badges have holders. */
const EVERY_DAY_LATELY = new Set([0, 4]);
const LATELY_DAYS = 8;
/** Paused by the school after two weeks: listed with its mastery, no practice since. */
const PAUSED = { curriculum: 1, student: 6, afterDay: 12 };

interface Course {
  curriculumId: string;
  concepts: string[];
  /** The concept being worked on; the next one once this one is mastered. */
  current: number;
  pausedAfterDay: number | null;
}

/** A launch into the learning app on the student's demo device (the seat their exam launches use). */
async function launchLearning(db: Database, tenant: Tenant, institution: InstitutionRow, student: PersonRow, index: number): Promise<LearnerAuth> {
  const { token } = await mintLaunchToken(tenant, { email: student.login_email, app: 'learning', ttl_seconds: LAUNCH_TTL_DEFAULT_SECONDS });
  const firstName = student.full_name.split(' ')[0] ?? student.full_name;
  const exchanged = await exchangeLaunchToken(db, { token, device: { id: `demo-device-${index + 1}`, name: `${firstName}'s laptop` } });
  return { kind: 'session', session: exchanged.session, person: exchanged.person, institution, tenant };
}

/** Mostly the concept in hand; now and then a look back at an earlier one. */
function conceptFor(course: Course, rng: Rng): string {
  const reviewing = course.current > 0 && rng() < 0.2;
  const index = reviewing ? Math.floor(rng() * course.current) : course.current;
  return course.concepts[index] as string;
}

/**
 * Alpha Learning: two curricula of the demo institution, enrollments with guides (one paused), and
 * three weeks of practice through `recordActivity`, the command behind `POST /app/alpha/activity`,
 * dated on the days it happened. So mastery, the points ledger, streaks and badges come out of
 * the same rules as a real student's, each ledger row with its `alpha.points.awarded`.
 */
export async function seedAlphaPractice(db: Database, tenant: Tenant, institution: InstitutionRow, people: DemoPeople, rng: Rng): Promise<void> {
  const courses = new Map<number, Course[]>();
  const curriculumIds: string[] = [];
  for (const [curriculumIndex, spec] of CURRICULA.entries()) {
    const { curriculum, concepts } = await createCurriculum(db, {
      name: spec.name,
      description: spec.description,
      concepts: [...spec.concepts],
      institution_id: institution.id,
      publish: true,
    });
    curriculumIds.push(curriculum.id);
    await createEnrollments(tenant, {
      curriculum_id: curriculum.id,
      student_ids: spec.students.map((index) => people.student(index).id),
      daily_target_minutes: DAILY_TARGET_MINUTES,
      guide_id: people.teacher(spec.guide).id,
    });
    for (const index of spec.students) {
      const paused = curriculumIndex === PAUSED.curriculum && index === PAUSED.student;
      const course: Course = {
        curriculumId: curriculum.id,
        concepts: concepts.map((concept) => concept.id),
        current: 0,
        pausedAfterDay: paused ? PAUSED.afterDay : null,
      };
      courses.set(index, [...(courses.get(index) ?? []), course]);
    }
  }

  const now = Date.now();
  for (const [index, studentCourses] of courses) {
    const learner = await launchLearning(db, tenant, institution, people.student(index), index);
    const diligence = 0.25 + 0.3 * rng();
    const skill = 0.6 + 0.35 * rng();
    for (const day of range(0, DAYS - 1)) {
      const daysAgo = DAYS - 1 - day;
      const forced = EVERY_DAY_LATELY.has(index) && daysAgo < LATELY_DAYS;
      if (!forced && rng() > diligence) continue;
      // That day, from three hours before this time of day (so today's are past), a few minutes apart.
      let at = now - daysAgo * DAY_MS - 3 * 60 * MINUTE_MS;
      for (const course of studentCourses) {
        if (course.pausedAfterDay !== null && day >= course.pausedAfterDay) continue;
        const count = rng() < 0.2 ? 2 : 1;
        for (let n = 0; n < count; n += 1) {
          const conceptId = conceptFor(course, rng);
          const minutes = 6 + Math.floor(rng() * 11);
          at += minutes * MINUTE_MS;
          const result = await recordActivity(
            learner,
            { curriculum_id: course.curriculumId, concept_id: conceptId, correct: rng() < skill, minutes },
            new Date(at),
          );
          const onCurrent = conceptId === course.concepts[course.current];
          if (onCurrent && result.mastery.row.mastery >= ALPHA_RULES.MASTERED_AT && course.current < course.concepts.length - 1) course.current += 1;
        }
      }
    }
  }

  // Paused once its practice is recorded: activity on a paused enrollment is refused.
  const paused = await tenant.alphaEnrollments.findOne({
    where: { student_id: people.student(PAUSED.student).id, curriculum_id: curriculumIds[PAUSED.curriculum] as string },
  });
  if (paused) await updateEnrollment(tenant, paused.id, { status: 'paused' });
}
