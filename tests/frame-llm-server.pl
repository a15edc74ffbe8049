#!/usr/bin/perl
# tests/frame-llm-server.pl PORTFILE LOGFILE: a tiny OpenAI-compatible chat
# completions endpoint on 127.0.0.1 (an ephemeral port, written to
# PORTFILE) for cc-frame's tests.  The first path segment picks the
# answer, an extraction of seed 003's example request
# 「ログイン機能でパスワードが空のときエラーが出ないのでチェックを追加して」:
#   /good      JSON in a fence: two slots quoted, one inconsistent with its
#              quote (seed 003's own バリデーション追加 / チェックを追加)
#   /prose     the same object with prose around it
#   /invent    every quote made up (not in the request)
#   /garbage   200, not JSON          /empty   an answer with no object
#   /500       HTTP 500 (retried once)          /slow  answers after 5 s
# Each request is logged as one line: the path, whether an Authorization
# header came (never the key), the model, and the prompt with new lines
# as \n.  perl-base only; exits after 600 s.
use strict;
use warnings;
use IO::Socket::INET;

my ($portfile, $logfile) = @ARGV;
my $dir = $0 =~ m{^(.*)/} ? $1 : '.';
require "$dir/test-server.pl";
my ($srv, $log) = listen_local($portfile, $logfile, 600);

sub reply {
	my ($c, $status, $body) = @_;
	print $c "HTTP/1.0 $status\r\nContent-Type: application/json\r\n",
	    "Content-Length: ", length($body), "\r\nConnection: close\r\n\r\n", $body;
}

sub completion {
	return '{"id":"t","object":"chat.completion","choices":[{"index":0,'
	    . '"message":{"role":"assistant","content":' . json_string(shift) . '}}]}';
}

my $slots = '{"target_feature": {"value": "ログイン機能", "quote": "ログイン機能で"}, '
    . '"trigger_condition": null, '
    . '"observed_issue": {"value": "エラーなしで通過", "quote": "エラーが出ない"}, '
    . '"desired_action": {"value": "バリデーション追加", "quote": "チェックを追加"}}';
my $invented = '{"target_feature": {"value": "認証システム", "quote": "認証システム"}, '
    . '"observed_issue": {"value": "500エラー", "quote": "500エラーが返る"}}';

while (my $c = $srv->accept) {
	binmode $c;
	my ($head, $body, $len) = ('', '', 0);
	while (defined(my $l = <$c>)) {
		$head .= $l;
		$len = $1 if $l =~ /^Content-Length:\s*(\d+)/i;
		last if $l eq "\r\n";
	}
	read $c, $body, $len if $len;
	my ($path) = $head =~ /^\w+ (\S+)/;
	my ($mode) = ($path // '') =~ m{^/([^/]+)};
	$mode //= '';
	my $auth = $head =~ /^Authorization: Bearer \S+/mi ? 'yes' : 'no';
	my ($model) = $body =~ /"model":"([^"]*)"/;
	my ($user) = $body =~ /"role":"user","content":"((?:[^"\\]|\\.)*)"/;
	$user //= '';
	print $log "$path auth=$auth model=", $model // '', " prompt=$user\n";
	if ($mode eq 'good') {
		reply($c, '200 OK', completion("```json\n$slots\n```"));
	} elsif ($mode eq 'prose') {
		reply($c, '200 OK', completion("Here is the extraction:\n$slots\nI hope this helps."));
	} elsif ($mode eq 'invent') {
		reply($c, '200 OK', completion($invented));
	} elsif ($mode eq 'garbage') {
		reply($c, '200 OK', 'this is not json');
	} elsif ($mode eq 'empty') {
		reply($c, '200 OK', completion('I cannot find anything.'));
	} elsif ($mode eq 'slow') {
		if (fork() == 0) {
			sleep 5;
			reply($c, '200 OK', completion($slots));
			exit 0;
		}
	} else {
		reply($c, '500 Internal Server Error', '{"error":"boom"}');
	}
	close $c;
}
