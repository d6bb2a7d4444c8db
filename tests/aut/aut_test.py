#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""aut_test.py T_AUT SCC SCVM WORK - runtime/aut, the agent under test, over
each of its three ways, against real counterparts:

  http  `scvm serve llm` playing a scripted agent on an ephemeral port: two
        turns, the second request carrying the first answer (the server
        answers turn 2 only to a conversation of both), a tool call as an
        action; a refused connection, a bad URL, a server that never answers
        (timeout), a 404;
  acp   `scvm serve acp` over stdio: initialize, session/new, two prompts,
        the agent's text chunks as the reply, its tool call as an action; a
        command that is not on PATH; an agent that writes garbage;
  pty   a shell loop in a pseudo-terminal: the reply without the echo of
        the input, the screen after it; a program that never answers
        (timeout); one that exits at once.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import failures, say as expect  # noqa: E402

T_AUT, SCC, SCVM, WORK = sys.argv[1:5]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)


def turns(kind, timeout, target, inputs):
    p = subprocess.run([T_AUT, kind, str(timeout)] + target + [';;'] + inputs, capture_output=True, text=True,
                       timeout=120)
    return p.returncode, [json.loads(l) for l in p.stdout.splitlines()]


def compile_(name, text):
    src = os.path.join(WORK, name + '.yaml')
    open(src, 'w').write(text)
    out = os.path.join(WORK, name + '.scb')
    subprocess.run([SCC, '-o', out, src], check=True)
    return out


# ---------- http ----------
scb = compile_('chat', """name: chat
timeline:
  - userInputs:
      - [0, 'What is in notes.txt?']
  - llmResponse:
      - assistant:
          - [0, 'Let me read it.']
  - agentActions:
      - readFile:
          path: 'notes.txt'
          result: 'hello'
          status: 'ok'
  - userInputs:
      - [10, 'And now?']
  - llmResponse:
      - assistant:
          - [0, 'It says hello.']
""")
srv = subprocess.Popen([SCVM, 'serve', 'llm', '--listen', '127.0.0.1:0', '--speed', '0', '--quiet', scb],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
line = srv.stdout.readline()
url = line.strip().split('listening on ')[-1] + '/v1'
try:
    st, out = turns('http', 10000, [url], ['What is in notes.txt?', 'And now?'])
    expect(st == 0 and len(out) == 2, 'http: two turns (%s)' % out)
    if len(out) == 2:
        expect(out[0]['error'] is None and out[0]['text'] == 'Let me read it.', 'http: turn 1 text %r' % out[0]['text'])
        expect([a['name'] for a in out[0]['actions']] != [] and json.loads(out[0]['actions'][0]['input']).get('path')
               == 'notes.txt', 'http: the tool call is an action %s' % out[0]['actions'])
        expect(out[1]['error'] is None and out[1]['text'] == 'It says hello.', 'http: turn 2 %s' % out[1])
finally:
    srv.terminate()
    srv.wait(timeout=10)
s = socket.socket()
s.bind(('127.0.0.1', 0))
port = s.getsockname()[1]
s.close()
st, out = turns('http', 5000, ['http://127.0.0.1:%d/v1' % port], ['hi'])
expect(out and out[0]['error'] == 'E_AUT_START' and 'cannot connect' in out[0]['why'], 'http: refused: %s' % out)
st, out = turns('http', 5000, ['https://example.com/v1'], ['hi'])
expect(st == 1 and out and out[0].get('open') == 'failed' and 'only http://' in out[0]['why'], 'http: https: %s' % out)
# a server that accepts and never answers
silent = socket.socket()
silent.bind(('127.0.0.1', 0))
silent.listen(1)
st, out = turns('http', 700, ['http://127.0.0.1:%d/v1' % silent.getsockname()[1]], ['hi'])
expect(out and out[0]['error'] == 'E_AUT_TIMEOUT', 'http: a silent server is a timeout: %s' % out)
silent.close()
# a 404 from a server that speaks HTTP but not the API
nf = socket.socket()
nf.bind(('127.0.0.1', 0))
nf.listen(1)


def answer_404():
    c, _ = nf.accept()
    c.recv(65536)
    c.sendall(b'HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nnope!\r\n0\r\n\r\n')
    c.close()


threading.Thread(target=answer_404, daemon=True).start()
st, out = turns('http', 5000, ['http://127.0.0.1:%d/v1' % nf.getsockname()[1]], ['hi'])
expect(out and out[0]['error'] == 'E_AUT_PROTOCOL' and 'HTTP 404' in out[0]['why'] and 'nope!' in out[0]['why'],
       'http: a 404 (chunked) is a protocol error with its body: %s' % out)

# ---------- acp ----------
acp = compile_('acpchat', """name: acpchat
timeline:
  - userInputs:
      - [0, 'Say hello']
  - llmResponse:
      - assistant:
          - [0, 'Hello ']
          - [0, 'there.']
  - agentActions:
      - runCmd:
          cmd: 'echo hi'
          result: 'hi'
          status: 'ok'
  - userInputs:
      - [10, 'Again']
  - llmResponse:
      - assistant:
          - [0, 'Hello again.']
""")
st, out = turns('acp', 10000, [SCVM, 'serve', 'acp', '--speed', '0', acp], ['Say hello', 'Again'])
expect(st == 0 and len(out) == 2, 'acp: two turns (%s)' % out)
if len(out) == 2:
    expect(out[0]['error'] is None and out[0]['text'] == 'Hello there.' and out[0]['stop'] == 'end_turn',
           'acp: turn 1 %s' % out[0])
    expect(len(out[0]['actions']) == 1, 'acp: the tool call is an action: %s' % out[0]['actions'])
    expect(out[1]['error'] is None and out[1]['text'] == 'Hello again.', 'acp: turn 2 %s' % out[1])
st, out = turns('acp', 5000, ['no-such-agent-here'], ['hi'])
expect(st == 1 and 'not found on PATH' in out[0]['why'], 'acp: a missing command: %s' % out)
st, out = turns('acp', 5000, ['sh', '-c', 'echo this is not json; sleep 5'], ['hi'])
expect(st == 1 and 'not JSON' in out[0]['why'], 'acp: garbage on stdout: %s' % out)

# ---------- pty ----------
loop = ['sh', '-c', 'printf "ready> "; while read l; do echo "you said: $l"; printf "ready> "; done']
st, out = turns('pty', 5000, loop, ['hello', 'two words'])
expect(st == 0 and len(out) == 2, 'pty: two turns (%s)' % out)
if len(out) == 2:
    expect(out[0]['error'] is None and out[0]['text'] == 'you said: hello\nready> ', 'pty: reply %r' % out[0]['text'])
    expect(out[1]['text'] == 'you said: two words\nready> ', 'pty: reply 2 %r' % out[1]['text'])
    expect(out[1]['screen'].splitlines()[:4] == ['ready> hello', 'you said: hello', 'ready> two words',
                                                 'you said: two words'], 'pty: the screen %r' % out[1]['screen'])
st, out = turns('pty', 800, ['sh', '-c', 'while read l; do :; done'], ['hello'])
expect(out and out[0]['error'] == 'E_AUT_TIMEOUT', 'pty: no answer is a timeout: %s' % out)
st, out = turns('pty', 5000, ['true'], ['hello'])
expect(st == 1 and 'exited' in out[0]['why'], 'pty: a program that exits at once: %s' % out)

# a TUI from an agent profile that draws its banner late, above the prompt,
# once the first input came (what Claude Code did on a busy machine): the
# reply is what came below the echo of the input, not the banner
late = os.path.join(WORK, 'late_banner.py')
open(late, 'w').write(r"""import sys
w = sys.stdout.write
w("\x1b[2J\x1b[5;1Hready> ")
sys.stdout.flush()
row, first = 5, True
for line in sys.stdin:
    if first:
        w("\x1b[1;1HLATE BANNER v9")
        first = False
    row += 2
    w("\x1b[%d;1Hanswer %d\r\nready> " % (row - 1, row // 2 - 2))
    sys.stdout.flush()
""")
prof = os.path.join(WORK, 'late.json')
json.dump({'name': 'late', 'api': 'openai-chat', 'command': 'python3', 'headless': [late],
           'interactive': {'args': [late], 'ready': 'ready>', 'quit': ['Ctrl+D']}}, open(prof, 'w'))
st, out = turns('pty-profile', 10000, [prof], ['hello', 'again'])
expect(st == 0 and len(out) == 2 and out[0]['text'] == 'answer 1\n' and out[1]['text'] == 'answer 2\n',
       'pty with a profile: a banner drawn late above the echo is not the reply: %s' % [o.get('text') for o in out])

# a TUI that goes quiet for longer than quiet_ms while it still works
# (a starved spinner), its busy text on the screen: the turn goes on until
# the busy text is gone (interactive.busy)
stall = os.path.join(WORK, 'stall.py')
open(stall, 'w').write(r"""import sys, select
w = sys.stdout.write
w("ready> ")
sys.stdout.flush()
for line in sys.stdin:
    w("\r\nthinking (esc to interrupt)")
    sys.stdout.flush()
    select.select([], [], [], 1.2)   # quiet for 4 x quiet_ms, at work
    w("\r\x1b[2Kdone, the answer\r\nready> ")
    sys.stdout.flush()
""")
prof = os.path.join(WORK, 'stall.json')
json.dump({'name': 'stall', 'api': 'openai-chat', 'command': 'python3', 'headless': [stall],
           'interactive': {'args': [stall], 'ready': 'ready>', 'busy': ['esc to interrupt'], 'quit': ['Ctrl+D']}},
          open(prof, 'w'))
st, out = turns('pty-profile', 20000, [prof], ['question'])
expect(st == 0 and len(out) == 1 and out[0]['text'] == 'done, the answer\n',
       'pty with a profile: a quiet screen with the busy text on it is not the end of the turn: %s'
       % [o.get('text') for o in out])

if failures:
    print('%d failure(s)' % len(failures))
    sys.exit(1)
print('the agent under test answers over http, acp and a pty, and every failure is named')
