<?php
// Verify a CampusBridge webhook in PHP 7.4 or later, no extensions beyond the defaults.
// verify():          the X-Service-Signature header.
// verify_standard(): the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature).
// $headers is an array of header name => value (any case, as getallheaders() returns it);
// $rawBody is the request body exactly as received (file_get_contents('php://input')), before json_decode.
declare(strict_types=1);

namespace CampusBridge;

const TOLERANCE_SECONDS = 300;

function header_value(array $headers, string $name): ?string
{
    foreach ($headers as $key => $value) {
        if (strtolower((string) $key) === $name) {
            return is_array($value) ? (string) reset($value) : (string) $value;
        }
    }
    return null;
}

// Rejects timestamps more than 5 minutes away from now (replays of old deliveries).
function fresh(string $timestamp, int $now): bool
{
    return preg_match('/^[0-9]+$/', $timestamp) === 1 && abs($now - (int) $timestamp) <= TOLERANCE_SECONDS;
}

function verify(string $secret, array $headers, string $rawBody, ?int $now = null): bool
{
    $now = $now ?? time();
    $value = header_value($headers, 'x-service-signature');
    if ($value === null) {
        return false;
    }
    $timestamp = null;
    $candidates = [];
    foreach (explode(',', $value) as $part) {
        $pair = explode('=', $part, 2);
        if (count($pair) !== 2) {
            continue;
        }
        $key = trim($pair[0]);
        if ($key === 't') {
            $timestamp = trim($pair[1]);
        } elseif ($key === 'v1') {
            $candidates[] = trim($pair[1]);
        }
    }
    if ($timestamp === null || !fresh($timestamp, $now)) {
        return false;
    }
    // The key is the whole secret, whsec_ included, as UTF-8 text.
    $expected = hash_hmac('sha256', $timestamp . '.' . $rawBody, $secret);
    // During a secret rotation there are two v1 entries: accept when any one matches.
    foreach ($candidates as $candidate) {
        if (hash_equals($expected, $candidate)) {
            return true;
        }
    }
    return false;
}

function verify_standard(string $secret, array $headers, string $rawBody, ?int $now = null): bool
{
    $now = $now ?? time();
    $id = header_value($headers, 'webhook-id');
    $timestamp = header_value($headers, 'webhook-timestamp');
    $signatures = header_value($headers, 'webhook-signature');
    if ($id === null || $timestamp === null || $signatures === null || !fresh($timestamp, $now)) {
        return false;
    }
    // The key is the base64-decoded part after whsec_.
    $key = base64_decode(strpos($secret, 'whsec_') === 0 ? substr($secret, 6) : $secret, true);
    if ($key === false) {
        return false;
    }
    $expected = base64_encode(hash_hmac('sha256', $id . '.' . $timestamp . '.' . $rawBody, $key, true));
    foreach (explode(' ', $signatures) as $entry) {
        $pair = explode(',', $entry, 2);
        if (count($pair) === 2 && $pair[0] === 'v1' && hash_equals($expected, $pair[1])) {
            return true;
        }
    }
    return false;
}

// Test vector from stdin: {"secret", "headers", "body", "now"} -> {"service": bool, "standard": bool}
if (PHP_SAPI === 'cli' && isset($argv[0]) && realpath($argv[0]) === __FILE__) {
    $vector = json_decode((string) file_get_contents('php://stdin'), true);
    $now = isset($vector['now']) ? (int) $vector['now'] : null;
    echo json_encode([
        'service' => verify($vector['secret'], $vector['headers'], $vector['body'], $now),
        'standard' => verify_standard($vector['secret'], $vector['headers'], $vector['body'], $now),
    ]), "\n";
}
