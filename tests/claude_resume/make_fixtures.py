"""Writes the Claude Code-shaped session files of fixtures/claude-code-tree:
python3 tests/claude_resume/make_fixtures.py fixtures/claude-code-tree

Each case is written in the shape of real Claude Code 2.1.x session lines (see SOURCES.md);
uuids are uuid5 of a readable name, so the files are reproducible.
"""
import json, uuid, sys, os
OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
NS = uuid.UUID("6f1c2a3e-5b1d-4c7a-9d2e-1a2b3c4d5e6f")
def U(name): return str(uuid.uuid5(NS, name))
class S:
    def __init__(self, name):
        self.name=name; self.sid=U("session-"+name); self.lines=[]; self.t=0
    def base(self, uid, parent, typ, extra=None):
        self.t+=1
        d={"parentUuid": U(parent) if parent and not parent.startswith("!") else (parent[1:] if parent else None),
           "isSidechain":False,"userType":"external","cwd":"/home/dev/shop","sessionId":self.sid,
           "version":"2.1.332","gitBranch":"main","type":typ}
        if extra: d.update(extra)
        return d
    def fin(self, d, uid):
        d["uuid"]=U(uid); d["timestamp"]="2026-11-20T10:%02d:%02d.000Z"%(self.t//60,self.t%60); self.lines.append(d); return d
    def user(self, uid, parent, text, **kw):
        d=self.base(uid,parent,"user"); d["message"]={"role":"user","content":text}; d.update(kw); return self.fin(d,uid)
    def asst(self, uid, parent, msgid, blocks, **kw):
        d=self.base(uid,parent,"assistant"); d["message"]={"model":"claude-sonnet-4-5-20250929","id":msgid,"type":"message","role":"assistant","content":blocks,"stop_reason":None,"stop_sequence":None,"usage":{"input_tokens":10,"output_tokens":5}}
        d["requestId"]="req_"+msgid[4:]; d.update(kw); return self.fin(d,uid)
    def result(self, uid, parent, tid, text, src=None, **kw):
        d=self.base(uid,parent,"user"); d["message"]={"role":"user","content":[{"tool_use_id":tid,"type":"tool_result","content":text,"is_error":False}]}
        d["toolUseResult"]={"stdout":text,"stderr":"","interrupted":False,"isImage":False}
        if src: d["sourceToolAssistantUUID"]=U(src)
        d.update(kw); return self.fin(d,uid)
    def raw(self, d): self.lines.append(d)
    def write(self, extra_tail=b""):
        with open(os.path.join(OUT,self.name+".jsonl"),"wb") as f:
            for l in self.lines: f.write(json.dumps(l,separators=(",",":")).encode()+b"\n")
            f.write(extra_tail)
def tu(tid, cmd): return {"type":"tool_use","id":tid,"name":"Bash","input":{"command":cmd,"description":"run "+cmd}}
def tx(t): return {"type":"text","text":t}

# 1 clean, with parallel results in completion order and a snapshot/progress line
s=S("clean"); s.raw({"type":"file-history-snapshot","messageId":U("u1"),"snapshot":{"messageId":U("u1"),"trackedFileBackups":{},"timestamp":"2026-11-20T10:00:00.000Z"},"isSnapshotUpdate":False})
s.user("u1",None,"list the files and the branch")
s.asst("a1",  "u1","msg_01clean1",[tx("Checking both.")])
s.asst("a1b", "a1","msg_01clean1",[tu("toolu_01ClnLs","ls")])
s.asst("a1c", "a1b","msg_01clean1",[tu("toolu_01ClnGit","git branch")])
s.result("r2","a1c","toolu_01ClnGit","* main",src="a1c")
s.result("r1","r2","toolu_01ClnLs","Cargo.toml\nsrc",src="a1b")
s.asst("a2","r1","msg_01clean2",[tx("You are on main; the tree has Cargo.toml and src.")])
s.write()

# 2 mid-history dangling call
s=S("mid-dangling")
s.user("u1",None,"delete the build folder")
s.asst("a1","u1","msg_01mid1",[tx("Removing it."),tu("toolu_01MidRm","rm -rf build")])
s.user("u2","a1","actually, what time is it?")
s.asst("a2","u2","msg_01mid2",[tx("I cannot see a clock.")])
s.write()

# 3 trailing call
s=S("trailing-call")
s.user("u1",None,"run the tests")
s.asst("a1","u1","msg_01trl1",[tu("toolu_01TrlTest","cargo test")])
s.write()

# 4 orphan result
s=S("orphan-result")
s.user("u1",None,"hello")
s.asst("a1","u1","msg_01orp1",[tx("Hi.")])
s.result("r1","a1","toolu_01OrpGone","stale output")
s.asst("a2","r1","msg_01orp2",[tx("Noted.")])
s.write()

# 5 rewind fork, healthy live branch; abandoned branch has a dangling call
s=S("rewind-fork")
s.user("u1",None,"show the readme")
s.asst("a1","u1","msg_01rwd1",[tu("toolu_01RwdCat","cat README.md")])
s.result("r1","a1","toolu_01RwdCat","# shop",src="a1")
s.asst("a2","r1","msg_01rwd2",[tx("It is titled shop.")])
s.user("u2","a2","now delete it")
s.asst("a3","u2","msg_01rwd3",[tu("toolu_01RwdRm","rm README.md")])
s.user("u2b","a2","no, just count its lines")
s.asst("a4","u2b","msg_01rwd4",[tu("toolu_01RwdWc","wc -l README.md")])
s.result("r4","a4","toolu_01RwdWc","1 README.md",src="a4")
s.asst("a5","r4","msg_01rwd5",[tx("One line.")])
s.write()

# 6 call and result on different branches
s=S("fork-split")
s.user("u0",None,"hi")
s.asst("a0","u0","msg_01fks0",[tx("Hello.")])
s.user("u1","a0","run ls")
s.asst("a1","u1","msg_01fks1",[tu("toolu_01FksLs","ls")])
s.user("u1b","a0","run pwd instead")
s.asst("a1b","u1b","msg_01fks2",[tu("toolu_01FksPwd","pwd")])
s.result("r1","a1b","toolu_01FksLs","Cargo.toml",src="a1")
s.result("r2","r1","toolu_01FksPwd","/home/dev/shop",src="a1b")
s.asst("a2","r2","msg_01fks3",[tx("Done.")])
s.write()

# 7 missing parent splitting a call from its result
s=S("missing-parent")
s.user("u1",None,"count the files")
s.asst("a1","u1","msg_01mis1",[tu("toolu_01MisLs","ls | wc -l")])
s.result("r1","!4d3c2b1a-0000-4000-8000-00000000dead","toolu_01MisLs","2",src="a1")
s.asst("a2","r1","msg_01mis2",[tx("Two files.")])
s.write()

# 8 compaction between call and result
s=S("compact-split")
s.user("u1",None,"build it")
s.asst("a1","u1","msg_01cmp1",[tu("toolu_01CmpBuild","cargo build")])
d=s.base("b1",None,"system",{"subtype":"compact_boundary","content":"Conversation compacted","isMeta":False,"level":"info","compactMetadata":{"trigger":"auto","preTokens":150000},"logicalParentUuid":U("a1")}); s.fin(d,"b1")
s.user("cs","b1","This session is being continued from a previous conversation. Summary: the user asked to build the project; a cargo build was started.",isCompactSummary=True,isVisibleInTranscriptOnly=True)
s.result("r1","cs","toolu_01CmpBuild","Finished dev profile",src="a1")
s.asst("a2","r1","msg_01cmp2",[tx("Built.")])
s.write()

# 9 self-parent
s=S("self-parent")
s.user("u1","u1","hello")
s.asst("a1","u1","msg_01slf1",[tx("Hi.")])
s.write()

# 10 cycle
s=S("cycle")
s.user("u1","a2","hello")
s.asst("a1","u1","msg_01cyc1",[tx("Hi.")])
s.user("u2","a1","again")
s.asst("a2","u2","msg_01cyc2",[tx("Hi again.")])
s.write()

# 11 duplicate uuid, identical copy
s=S("dup-identical")
s.user("u1",None,"list")
s.asst("a1","u1","msg_01dpi1",[tu("toolu_01DpiLs","ls")])
r=s.result("r1","a1","toolu_01DpiLs","src",src="a1")
s.raw(dict(r))
s.asst("a2","r1","msg_01dpi2",[tx("One folder.")])
s.write()

# 12 duplicate uuid, conflicting
s=S("dup-conflict")
s.user("u1",None,"list")
s.asst("a1","u1","msg_01dpc1",[tu("toolu_01DpcLs","ls")])
s.result("r1","a1","toolu_01DpcLs","src",src="a1")
s.t+=1; d=s.base("a1",  "u1","assistant"); d["message"]={"model":"claude-sonnet-4-5-20250929","id":"msg_01dpc9","type":"message","role":"assistant","content":[tx("A different answer.")]}; s.fin(d,"a1")
s.asst("a2","r1","msg_01dpc2",[tx("One folder.")])
s.write()

# 13 server tool result without its call
s=S("server-orphan")
s.user("u1",None,"search the web for rust 2024")
s.asst("a1","u1","msg_01srv1",[{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01SrvGone","content":[{"type":"web_search_result","url":"https://example.org/","title":"Rust","encrypted_content":"abc","page_age":None}]}])
s.asst("a2","a1","msg_01srv1",[tx("Rust 2024 is out.")])
s.write()

# 14 leaf choice: older-timestamped branch written last
s=S("leaf-choice")
s.user("u1",None,"pick a colour")
s.asst("a1","u1","msg_01lf1",[tx("Blue.")])
s.user("u2","a1","another")
s.asst("a2","u2","msg_01lf2",[tx("Green.")])
s.user("u3","a1","another one")
s.asst("a3","u3","msg_01lf3",[tx("Red.")])
s.lines[-2]["timestamp"]="2026-11-20T09:00:00.000Z"; s.lines[-1]["timestamp"]="2026-11-20T09:00:01.000Z"
s.write()

# 15 torn final line
s=S("torn-tail")
s.user("u1",None,"list")
s.asst("a1","u1","msg_01trn1",[tu("toolu_01TrnLs","ls")])
s.result("r1","a1","toolu_01TrnLs","src",src="a1")
s.write(extra_tail=b'{"parentUuid":"'+U("r1").encode()+b'","isSidechain":false,"type":"assistant","message":{"id":"msg_01trn2","role":"assistant","content":[{"type":"text","text":"One fo')

# X1 last line in file is not a leaf
s=S("last-line-not-leaf")
s.user("u1",None,"one")
s.user("u2","a1","two")
s.asst("a2","u2","msg_01xl2",[tx("Second.")])
s.asst("a1","u1","msg_01xl1",[tx("First.")])
s.write()

# X2 missing parent without sourceToolAssistantUUID
s=S("missing-parent-no-source")
s.user("u1",None,"count the files")
s.asst("a1","u1","msg_01xm1",[tu("toolu_01XmLs","ls | wc -l")])
s.result("r1","!4d3c2b1a-0000-4000-8000-00000000dead","toolu_01XmLs","2")
s.asst("a2","r1","msg_01xm2",[tx("Two files.")])
s.write()

# X3 missing parent on a text user line
s=S("missing-parent-text")
s.user("u1",None,"hello")
s.asst("a1","u1","msg_01xt1",[tx("Hi.")])
s.user("u2","!4d3c2b1a-0000-4000-8000-00000000beef","and now?")
s.asst("a2","u2","msg_01xt2",[tx("Now nothing.")])
s.write()

# X4 missing parent, with a call whose result follows the gap and a sidechain line
s=S("missing-parent-gap")
s.user("u1",None,"count the files")
s.asst("a1","u1","msg_01xf1",[tu("toolu_01XfLs","ls | wc -l")])
s.user("u9","a1","unrelated")
s.result("r1","!4d3c2b1a-0000-4000-8000-00000000dead","toolu_01XfLs","2")
s.asst("a2","r1","msg_01xf2",[tx("Two files.")])
s.write()

# parallel calls whose results each hang from the line of their own call (as Claude Code
# writes them), completing out of order; the next turn hangs from the last result written
s=S("parallel-branches")
s.user("u1",None,"read both files")
s.asst("a1","u1","msg_01par1",[tx("Reading both.")])
s.asst("a1b","a1","msg_01par1",[tu("toolu_01ParA","cat a.txt")])
s.asst("a1c","a1b","msg_01par1",[tu("toolu_01ParB","cat b.txt")])
s.result("rb","a1c","toolu_01ParB","bee",src="a1c")
s.result("ra","a1b","toolu_01ParA","ay",src="a1b")
s.asst("a2","ra","msg_01par2",[tx("a says ay, b says bee.")])
s.write()

# the last line is not where the history ends: a line hanging from it was written later
# (by timestamp), and resume follows it down; a leaf on another branch that is older stays out
s=S("late-last-line")
s.user("u1",None,"pick a colour")
s.asst("a1","u1","msg_01lat1",[tx("Blue.")])
s.asst("a2","u2","msg_01lat2",[tx("Green.")])
s.user("u3","a1","another one")
s.asst("a3","u3","msg_01lat3",[tx("Red.")])
s.user("u2","a1","another")
for i,t in enumerate([1,2,20,4,5,10]): s.lines[i]["timestamp"]="2026-11-20T10:00:%02d.000Z"%t
s.write()

# the last line hangs from an earlier line but lines below it are older: resume starts at it
s=S("last-line-older-children")
s.user("u1",None,"list")
s.asst("a1","u1","msg_01loc1",[tu("toolu_01LocLs","ls")])
s.asst("a2","r1","msg_01loc2",[tx("Listed.")])
s.result("r1","a1","toolu_01LocLs","src",src="a1")
s.write()

# a /rewind fork at a call never answered: the abandoned reply hangs from the call line
# before the live one, so the placeholder must relink the live reply, not the first child
s=S("rewind-dangling")
s.user("u1",None,"clean the cache")
s.asst("a1","u1","msg_01rdg1",[tx("Cleaning it."),tu("toolu_01RdgRm","rm -rf .cache")])
s.user("u2","a1","wait, keep the cache")
s.asst("a2","u2","msg_01rdg2",[tx("Kept.")])
s.user("u3","a1","what is in the cache?")
s.asst("a3","u3","msg_01rdg3",[tx("I cannot tell without the listing.")])
s.write()
