import { call, portal } from '../../api/portal';
import { useInstitution } from '../../session';
import { OutboundPostsTable } from '../shared/OutboundPostsTable';
import { gradebookPostsKey, type GradebookPost } from './oneroster';

const STEP_WORDS: Record<GradebookPost['attempts'][number]['step'], string> = {
  token: 'token',
  category: 'category',
  class: 'class lookup',
  lineItem: 'line item',
  result: 'result',
};
/** A result post changes within seconds of a grade; the open page follows it. */
const REFRESH_MS = 10_000;

const refOf = (value: unknown) => (value && typeof value === 'object' ? String((value as { sourcedId?: unknown }).sourcedId ?? '') : '');

/** Results sent (or to send) to the SIS's gradebook, each attempt with the request it ended on, and Retry for one that gave up. */
export function GradebookPosts() {
  const institution = useInstitution();
  return (
    <OutboundPostsTable<GradebookPost>
      queryKey={gradebookPostsKey(institution.id)}
      list={() => call(portal.GET('/institutions/{id}/oneroster/gradebook/posts', { params: { path: { id: institution.id } } }))}
      retry={(postId) => call(portal.POST('/institutions/{id}/oneroster/gradebook/posts/{postId}/retry', { params: { path: { id: institution.id, postId } } }))}
      label="Grades sent to the SIS"
      empty="No grade has been sent to the SIS yet."
      refetchInterval={REFRESH_MS}
      columns={[
        { header: 'SIS student', cell: (post) => refOf(post.payload.student) },
        { header: 'Class', cell: (post) => refOf(post.payload.class) },
        { header: 'Score', cell: (post) => String(post.payload.score ?? '') },
      ]}
      attemptStep={(attempt) => STEP_WORDS[attempt.step]}
    />
  );
}
