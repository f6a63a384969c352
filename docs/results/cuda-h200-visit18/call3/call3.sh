set -u
mkdir -p $OUT/r
A=build/ab15
T0=$(date +%s)
cp build/s15/call3.sh $OUT/r/
P=cuda-f32acc-f16-gemv-v1
S=attn-fused-splits:5]
declare -A V
V[K]="$P[qkv:r2p+pdl,o:r2p-bulk+pdl,gu:r2p+pdl,down:r1p-bulk+pdl,head:r2p+pdl,$S"
V[R]="$P[qkv:r2p+pdl,o:r2p+pdl,gu:r2p+pdl,down:r1p+pdl,head:r2p+pdl,$S"
i=0
for k in K R K R K R; do i=$((i+1))
  EC_CUDA_VARIANTS="${V[$k]}" timeout 80 $A/ecocompute run --model qwen2.5-3b --precision FP16 --no-quality --new-tokens 1024 --iterations 5 --warmup 1 --hz 100 --out $OUT/r/run-$i-$k.json > $OUT/r/run-$i-$k.log 2>&1; echo "$k rc=$? t=$(( $(date +%s)-T0 ))"
  python3 -c "import json,sys;j=json.load(open(sys.argv[1]));r=j['results'];it=[x['energy_j'] for x in j['iterations']];print(' tok/s %.1f J/1k %.1f iterJ %s choice %s'%(r['throughput_tokens_per_s'],r['energy_per_token_mj'],[round(x,1) for x in it],j['engine'].get('kernel_variant_choice')))" $OUT/r/run-$i-$k.json
done
EC_CUDA_TUNE_LOG=1 timeout 150 $A/ecocompute run --model qwen2-7b --precision INT8-WO --no-quality --new-tokens 1024 --iterations 3 --warmup 1 --hz 100 --out $OUT/r/run-7b.json > $OUT/r/run-7b.log 2>&1; echo "7b rc=$? t=$(( $(date +%s)-T0 ))"
$A/ecocompute validate $OUT/r/run-7b.json > $OUT/r/validate-7b.log 2>&1; echo "validate rc=$?"; tail -2 $OUT/r/validate-7b.log
python3 -c "import json,sys;j=json.load(open(sys.argv[1]));
for k in ('baseline',None):
  d=j[k] if k else j; r=d['results']; e=d['engine']; print(e['precision'],'tok/s %.1f J/1k %.1f'%(r['throughput_tokens_per_s'],r['energy_per_token_mj']),e.get('kernel_variant_choice'),e['kernel_variant'])" $OUT/r/run-7b.json
tar czf $OUT/r.tgz -C $OUT r && rm -rf $OUT/r
