/* The foreign functions of Inputs/foreign_abi.c. */
#ifndef COPYSTACK_TEST_FOREIGN_ABI_H
#define COPYSTACK_TEST_FOREIGN_ABI_H

typedef struct { long a; double b; } fa_pair;    /* %rax, %xmm0 */
typedef struct { double x, y; } fa_dpair;        /* %xmm0, %xmm1 */
typedef struct { long a, b; } fa_lpair;          /* %rax, %rdx */
typedef struct { long v[5]; } fa_big;            /* memory */
typedef float fa_v4f __attribute__((vector_size(16)));

long fa_six_ints(long a, long b, long c, long d, long e, long f);
double fa_eight_doubles(double a, double b, double c, double d, double e,
                        double f, double g, double h);
double fa_mixed(int a, double b, long c, float d, const char *e, double f,
                unsigned char g, short h);
fa_pair fa_make_pair(long a, double b);
fa_dpair fa_make_dpair(double x);
fa_lpair fa_make_lpair(long x);
__int128 fa_wide(__int128 x, long y);
fa_v4f fa_vec(fa_v4f a, fa_v4f b);
fa_big fa_big_ret(long x);
long fa_big_arg(fa_big b, long k);
long fa_seven(long a, long b, long c, long d, long e, long f, long g);
long double fa_ld(long double x, int k);
double fa_sum_va(int n, ...);
long fa_call_back(long (*fn)(long), long x);
void fa_fill(char *dst, int n, char c);

#endif
