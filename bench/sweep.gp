# Size sweep (bench/sweep_report.py writes the data and runs this):
#   gnuplot -e "data='bench/sweep.dat'; out='bench/sweep.png'; titles='S2B_1T S2B_2T ... memcpy_1T'" bench/sweep.gp
# Blocks of the data file: one per op and thread count (1T, 2T alternating), memcpy last.
# Columns: bytes, kernel ns per output byte, memcpy/kernel median, min, max, memcpy ns/byte.
if (!exists("data")) data = 'bench/sweep.dat'
if (!exists("out")) out = 'bench/sweep.png'
if (!exists("titles")) titles = 'S2B_1T S2B_2T B2S_1T B2S_2T Stitch_1T Stitch_2T PStitch_1T PStitch_2T Partition_1T Partition_2T SparseConcat_1T SparseConcat_2T memcpy_1T'
# The machine (sweep_report.py passes the sweep binary's context): its CPU, L1d and L2 per core
# (sysconf), where glibc's memcpy streams (row_copy::memcpy_streaming_min_bytes) and where
# tensors and memcpy buffers get huge pages (opconform/tensor.h).
if (!exists("cpu")) cpu = 'unknown CPU'
if (!exists("l1")) l1 = 32*2**10
if (!exists("l2")) l2 = 2**20
if (!exists("streams")) streams = 240*2**20
if (!exists("huge")) huge = 64*2**20
size_label(b) = b >= 2**20 ? sprintf("%gM", b / 2.0**20) : sprintf("%gK", b / 2.0**10)
n = words(titles)
ops = (n - 1) / 2
array colour[6] = ["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377"]
title_of(i) = system("echo '".word(titles, i + 1)."' | tr _ ' '")

set terminal pngcairo size 1600,1300 noenhanced font ",11"
set output out
set multiplot layout 2,1 title "opconform optimized kernels vs output size (".cpu."; solid: 1 thread, dashed: 2 threads)"
set logscale x 2
set xrange [3000:1.5*2**30]
set xtics ("4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 2**20, "4M" 2**22, \
           "16M" 2**24, "64M" 2**26, "256M" 2**28, "1G" 2**30)
set grid xtics ytics mytics
set key outside right top
set xlabel "output bytes per call"
set arrow 1 from l1, graph 0 to l1, graph 1 nohead dt 3 lc rgb "gray40"
set arrow 2 from l2, graph 0 to l2, graph 1 nohead dt 3 lc rgb "gray40"
set arrow 3 from streams, graph 0 to streams, graph 1 nohead dt 3 lc rgb "gray40"
set label 1 "L1d ".size_label(l1) at l1, graph 0.97 right offset -0.5,0 tc rgb "gray30"
set label 2 "L2 ".size_label(l2) at l2, graph 0.97 right offset -0.5,0 tc rgb "gray30"
set arrow 5 from huge, graph 0 to huge, graph 1 nohead dt 3 lc rgb "gray40"
set label 5 "huge pages ".size_label(huge) at huge, graph 0.91 right offset -0.5,0 tc rgb "gray30"
set label 3 "memcpy streams ".size_label(streams) at streams, graph 0.97 right offset -0.5,0 tc rgb "gray30"

set title "time per output byte (lower is better)"
set ylabel "ns per output byte"
set logscale y 10
set format y "%g"
plot for [k=0:ops-1] data index 2*k using 1:2 with linespoints lw 2 pt 7 ps 0.6 dt 1 \
       lc rgb colour[k + 1] title title_of(2*k), \
     for [k=0:ops-1] data index 2*k+1 using 1:2 with linespoints lw 2 pt 6 ps 0.6 dt 2 \
       lc rgb colour[k + 1] title title_of(2*k+1), \
     data index 2*ops using 1:2 with linespoints lw 3 pt 5 ps 0.6 lc rgb "black" title title_of(2*ops)

set title "memcpy time / kernel time, same process (1.0 = as fast as a 1-thread memcpy of the output; higher is better)"
set ylabel "memcpy / kernel"
set logscale y 2
set ytics ("1/512" 0.001953125, "1/128" 0.0078125, "1/64" 0.015625, "1/32" 0.03125, "1/16" 0.0625, "1/8" 0.125, "1/4" 0.25, "1/2" 0.5, "1" 1, "2" 2, "4" 4, "8" 8)
set arrow 4 from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb "black"
plot for [k=0:ops-1] data index 2*k using 1:3 with linespoints lw 2 pt 7 ps 0.6 dt 1 \
       lc rgb colour[k + 1] title title_of(2*k), \
     for [k=0:ops-1] data index 2*k+1 using 1:3 with linespoints lw 2 pt 6 ps 0.6 dt 2 \
       lc rgb colour[k + 1] title title_of(2*k+1)
unset multiplot
