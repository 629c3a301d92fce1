import { call, portal } from '../../api/portal';
import { useInstitution } from '../../session';
import { OutboundPostsTable } from '../shared/OutboundPostsTable';
import { ltiScoresKey, type LtiScorePost } from './lti';

/** Grades sent (or to send) to the LMS gradebooks. */
export function ScorePosts() {
  const institution = useInstitution();
  return (
    <OutboundPostsTable<LtiScorePost>
      queryKey={ltiScoresKey(institution.id)}
      list={() => call(portal.GET('/institutions/{id}/lti/score-posts', { params: { path: { id: institution.id } } }))}
      retry={(postId) => call(portal.POST('/institutions/{id}/lti/score-posts/{postId}/retry', { params: { path: { id: institution.id, postId } } }))}
      label="Grades sent to the LMS"
      empty="No grade has been sent to an LMS yet."
      columns={[
        { header: 'LMS user', cell: (post) => String(post.payload.userId ?? '') },
        { header: 'Score', cell: (post) => `${String(post.payload.scoreGiven ?? '')} / ${String(post.payload.scoreMaximum ?? '')}` },
      ]}
    />
  );
}
