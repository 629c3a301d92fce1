import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api, type Page } from '../../api/client';

/** The institution's data as /portal/api/institutions/{id}/… answers it (the /v1 objects). */

export type PersonStatus = 'active' | 'suspended';

export interface Student {
  id: string;
  login_email: string;
  full_name: string;
  student_id: string | null;
  status: PersonStatus;
  created_at: string;
  updated_at: string;
}

export interface Faculty {
  id: string;
  login_email: string;
  full_name: string;
  faculty_id: string | null;
  status: PersonStatus;
  created_at: string;
  updated_at: string;
}

export interface BulkResult {
  results: Array<{ index: number; id: string; login_email: string } | { index: number; error: string; message: string }>;
  created: number;
  failed: number;
}

export interface Group {
  id: string;
  name: string;
  description: string;
  faculty_id: string;
  student_count: number;
  created_at: string;
  updated_at: string;
}

export interface GroupWrite extends Group {
  rejected_student_ids: string[];
}

export interface GroupMember {
  id: string;
  login_email: string;
  full_name: string;
  status: PersonStatus;
  added_at: string;
}

export type ExamStatus = 'draft' | 'published' | 'closed';
export type ExamApp = 'learning' | 'code';

export interface GroupDetail extends Group {
  members: GroupMember[];
  exams: Array<{ id: string; title: string; status: ExamStatus; app: ExamApp; due_date: string | null }>;
}

export type LicenseStatus = 'active' | 'expired' | 'revoked';

export interface License {
  id: string;
  user_id: string;
  type: 'student' | 'faculty';
  status: LicenseStatus;
  starts_at: string;
  expires_at: string;
  revoked_at: string | null;
}

type StatusCounts = Record<LicenseStatus, number>;
export interface LicenseSummary {
  by_type: { student: StatusCounts; faculty: StatusCounts };
  total: number;
}

export interface Seat {
  seat_id: string;
  app: ExamApp;
  device_name: string | null;
  activated_at: string;
  last_seen_at: string;
  status: 'active' | 'revoked';
}

export const EXAM_TYPES = ['exam', 'homework', 'assignment', 'quiz', 'project'] as const;

export interface Exam {
  id: string;
  faculty_id: string;
  title: string;
  description: string;
  exam_type: (typeof EXAM_TYPES)[number];
  app: ExamApp;
  status: ExamStatus;
  max_score: number | null;
  due_date: string | null;
  time_limit_minutes: number | null;
  proctoring: { camera?: boolean; screen?: boolean };
  ai_policy: { allowed?: boolean; model_tier?: string; max_interactions?: number };
  code_spec: Record<string, unknown> | null;
  published_at: string | null;
  closed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ExamDetail extends Exam {
  groups: Array<{ id: string; name: string; student_count: number }>;
  stats: { assigned_students: number; attempts: number; submissions: number; graded: number };
}

export type LiveSubmissionStatus = 'submitted' | 'graded' | 'resubmission_requested';
export type SubmissionStatus = LiveSubmissionStatus | 'voided';
export const SUBMISSION_STATUSES: readonly SubmissionStatus[] = ['submitted', 'graded', 'resubmission_requested', 'voided'];

export interface ScoreRow {
  student_id: string;
  login_email: string;
  full_name: string;
  submission_id: string | null;
  status: LiveSubmissionStatus | null;
  score: number | null;
  max_score: number | null;
}

export interface StudentExam {
  exam: Exam;
  submission: { id: string; status: LiveSubmissionStatus; score: number | null } | null;
}

export interface Submission {
  id: string;
  exam_id: string;
  student_id: string;
  attempt_id: string;
  status: SubmissionStatus;
  score: number | null;
  feedback: string | null;
  graded_by: string | null;
  graded_at: string | null;
  submitted_at: string;
  voided_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface FileLink {
  ref: string;
  name: string;
  size: number;
  sha256: string;
  url: string;
  expires_at: string;
}

export interface SubmissionDetail extends Submission {
  attachments: FileLink[];
  ai_usage: { interactions: number; cost_cents: number } | null;
  proctoring: { counts: Record<string, number>; total: number; first_at: string | null; last_at: string | null };
  answers: unknown;
  recordings?: FileLink[];
}

export interface ProctoringFeed {
  attempt: { id: string; started_at: string; expires_at: string | null; submitted_at: string | null; hidden_released_at: string | null };
  counts: Record<string, number>;
  items: Array<{ id: string; type: string; at: string; detail: unknown }>;
}

export type Area = 'students' | 'faculty' | 'groups' | 'licenses' | 'exams' | 'submissions';

/** Query keys: every read of an area starts with `['institution', id, area]`, so one invalidation refreshes them all. */
export const areaKey = (institutionId: string, area: Area) => ['institution', institutionId, area] as const;

export const dataPath = (institutionId: string, path: string) => `/institutions/${institutionId}${path}`;

/** Largest page the API gives: enough for pickers (owners, exams) in a school-sized institution. */
export const PICKER_LIMIT = 200;
export const PAGE_SIZE = 25;

/** One page of an area's list with the given filters; the previous page stays shown while the next loads. */
export function usePagedList<T>(institutionId: string, area: Area, filters: Record<string, string>, page: number, limit = PAGE_SIZE) {
  return useQuery({
    queryKey: [...areaKey(institutionId, area), 'list', filters, page, limit],
    queryFn: () => api.get<Page<T>>(dataPath(institutionId, `/${area}`), { ...filters, page, limit }),
    placeholderData: keepPreviousData,
  });
}

/** The faculty list for owner pickers and for naming owners in tables. */
export function useFacultyOptions(institutionId: string) {
  return useQuery({
    queryKey: [...areaKey(institutionId, 'faculty'), 'options'],
    queryFn: () => api.get<Page<Faculty>>(dataPath(institutionId, '/faculty'), { limit: PICKER_LIMIT }),
    staleTime: 30_000,
  });
}

/** Teachers' names by id, for the owner of a group or an exam. */
export function useTeacherNames(institutionId: string) {
  const faculty = useFacultyOptions(institutionId);
  return useMemo(() => new Map((faculty.data?.items ?? []).map((teacher) => [teacher.id, teacher.full_name])), [faculty.data]);
}

/** Exams for naming them in the submissions log and filtering it. */
export function useExamOptions(institutionId: string) {
  return useQuery({
    queryKey: [...areaKey(institutionId, 'exams'), 'options'],
    queryFn: () => api.get<Page<Exam>>(dataPath(institutionId, '/exams'), { limit: PICKER_LIMIT }),
    staleTime: 30_000,
  });
}

/** Where a person's page is, from the id's prefix (licenses hold students and faculty alike). */
export const personPath = (institutionId: string, userId: string) =>
  `/i/${institutionId}/${userId.startsWith('fac_') ? 'faculty' : 'students'}/${encodeURIComponent(userId)}`;

/** Splits pasted ids or emails on commas, spaces and new lines. */
export const splitRefs = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((ref) => ref.trim())
    .filter(Boolean);
