import { Badge, Group, Tooltip } from '@mantine/core';

const SHOWN = 3;

/** A list in a table cell: the first few as badges and a count of the rest; the tooltip has them all. */
export function TagBadges({ tags }: { tags: string[] }) {
  return (
    <Tooltip label={tags.join(', ')} multiline w={320}>
      <Group gap={4}>
        {tags.slice(0, SHOWN).map((tag) => (
          <Badge key={tag} variant="outline" size="sm" radius="sm" tt="none">
            {tag}
          </Badge>
        ))}
        {tags.length > SHOWN ? (
          <Badge variant="light" size="sm">
            +{tags.length - SHOWN}
          </Badge>
        ) : null}
      </Group>
    </Tooltip>
  );
}
