"""How spirv_and_names.txt was computed: what the SPIR-V that ONNX Runtime's Dawn hands to
vkCreateShaderModule holds, and which names reach Vulkan. Reads the full log of the throwaway
logging layer (not in the tree; each vkSetDebugUtilsObjectNameEXT, debug label, shader module and
compute pipeline logged) and the SPIR-V it dumped (spv/mod_PID_N.spv); the hash is wgprof's
(common/code_hash.c), so each module is named as the layer names it. Needs spirv-dis.

usage: spirv_info.py LOG:PID ..."""
import glob,re,subprocess,sys,os,collections
def fnv(b):
    h=0xcbf29ce484222325
    for x in b: h=((h^x)*0x100000001b3)&0xffffffffffffffff
    return f"spirv-{(h^(h>>32))&0xffffffff:08x}"
for arg in sys.argv[1:]:
    log, pid = arg.split(":")
    text=open(log).read()
    print(f"== {os.path.basename(log)}: vkSetDebugUtilsObjectNameEXT calls {text.count('SetName ')}, "
          f"command-buffer debug labels {len(re.findall(r' (Begin|Insert)Label ', text))}, "
          f"vkCreateShaderModule {text.count('CreateShaderModule ')}, vkCreateComputePipelines {text.count('CreateComputePipeline ')}")
    entries=collections.Counter(re.findall(r'CreateComputePipeline .* entry=(\S+)', text))
    print(f"   pipeline entry points: {dict(entries)}")
    for f in sorted(glob.glob(f"spv/mod_{pid}_*.spv"), key=lambda p:int(p.rsplit('_',1)[1][:-4])):
        b=open(f,'rb').read()
        dis=subprocess.run(['spirv-dis',f],capture_output=True,text=True).stdout
        ops=collections.Counter(m for m in re.findall(r'^\s*(?:%\S+ = )?(Op\w+)',dis,re.M))
        ep=re.search(r'OpEntryPoint GLCompute %\S+ "([^"]*)"',dis)
        ls=re.search(r'OpExecutionMode %\S+ LocalSize (\d+) (\d+) (\d+)',dis)
        strs=sorted(set(re.findall(rb'[A-Za-z_][A-Za-z0-9_]{3,}',b)))
        dbg={k:ops.get(k,0) for k in ('OpName','OpMemberName','OpString','OpSource','OpSourceExtension','OpLine','OpModuleProcessed','OpExtInstImport')}
        print(f"   {os.path.basename(f)} {fnv(b)} {len(b)} bytes entry={ep.group(1) if ep else None} local_size={ls.groups() if ls else None} {dbg}")
        print(f"      ASCII runs of 4+ in the binary: {[s.decode() for s in strs]}")
